package main

import (
	"log"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/slack"
	"github.com/tandem-agent/tandem/internal/config"
)

// slackBridge makes the bridge of the user config's Slack app; secrets
// are its tokens and signing secret, for the redactor.
func slackBridge(a *app.App, s *config.SlackBridge, logger *log.Logger) (b *bridge.Bridge, secrets []string, err error) {
	sc := slack.Config{BotToken: s.BotToken, AppToken: s.AppToken, APIURL: s.APIURL, SlashCommand: s.SlashCommand}
	if e := s.Events; e != nil {
		sc.Events = &slack.Events{Listen: e.Listen, SigningSecret: e.SigningSecret}
		secrets = append(secrets, e.SigningSecret)
	}
	plat, err := slack.New(sc)
	if err != nil {
		return nil, nil, err
	}
	secrets = append(secrets, s.BotToken, s.AppToken)
	b, err = bridge.New(plat, bridgeOptions(a, s.BridgeCommon, logger, nil))
	if err != nil {
		return nil, nil, err
	}
	return b, secrets, nil
}
