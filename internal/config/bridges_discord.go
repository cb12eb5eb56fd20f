package config

import "fmt"

// DiscordBridge is a Discord bot (the "discord" entry of "bridges").
type DiscordBridge struct {
	BridgeCommon
	// Token (or TokenEnv, the variable holding it) is the bot's token
	// from the Developer Portal (Bot, Reset Token).
	Token    string `json:"token,omitempty"`
	TokenEnv string `json:"token_env,omitempty"`
	// APIURL is the server answering for https://discord.com ("":
	// Discord itself); the gateway's address comes from it.
	APIURL string `json:"api_url,omitempty"`
}

func (d *DiscordBridge) check(getenv func(string) string, home string) error {
	tok, err := resolve(d.Token, d.TokenEnv, getenv, "token")
	if err != nil {
		return err
	}
	if tok == "" {
		return fmt.Errorf("no bot token: set token_env to the variable holding your bot's token (Developer Portal, Bot, Reset Token), or token")
	}
	d.Token = tok
	return d.BridgeCommon.check(home)
}
