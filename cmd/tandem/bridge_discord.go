package main

import (
	"log"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/discord"
	"github.com/tandem-agent/tandem/internal/config"
)

// discordBridge makes the bridge of the user config's discord entry.
func discordBridge(a *app.App, d *config.DiscordBridge, logger *log.Logger) (*bridge.Bridge, error) {
	plat, err := discord.New(discord.Config{Token: d.Token, APIURL: d.APIURL})
	if err != nil {
		return nil, err
	}
	return bridge.New(plat, bridgeOptions(a, d.BridgeCommon, logger, nil))
}
