package config

import (
	"fmt"
	"strings"
)

// SlackBridge is a Slack app: Socket Mode (app_token) or the Events API
// (events).
type SlackBridge struct {
	BridgeCommon
	// BotToken (or BotTokenEnv) is the bot user's OAuth token (xoxb-...).
	BotToken    string `json:"bot_token,omitempty"`
	BotTokenEnv string `json:"bot_token_env,omitempty"`
	// AppToken (or AppTokenEnv) is the app-level token (xapp-..., scope
	// connections:write) Socket Mode connects with.
	AppToken    string `json:"app_token,omitempty"`
	AppTokenEnv string `json:"app_token_env,omitempty"`
	// APIURL is the Web API ("": https://slack.com/api/).
	APIURL string       `json:"api_url,omitempty"`
	Events *SlackEvents `json:"events,omitempty"`
	// SlashCommand is the slash command the app registers ("":
	// /tandem).
	SlashCommand string `json:"slash_command,omitempty"`
}

// SlackEvents receives events over the Events API (HTTP) instead of
// Socket Mode.
type SlackEvents struct {
	Listen           string `json:"listen"`
	SigningSecret    string `json:"signing_secret,omitempty"`
	SigningSecretEnv string `json:"signing_secret_env,omitempty"`
}

func (s *SlackBridge) check(getenv func(string) string, home string) error {
	bot, err := resolve(s.BotToken, s.BotTokenEnv, getenv, "bot_token")
	if err != nil {
		return err
	}
	if !strings.HasPrefix(bot, "xoxb-") {
		return fmt.Errorf("bot_token (or bot_token_env) must give the app's bot token, xoxb-... (OAuth & Permissions in the app's settings)")
	}
	s.BotToken = bot
	app, err := resolve(s.AppToken, s.AppTokenEnv, getenv, "app_token")
	if err != nil {
		return err
	}
	s.AppToken = app
	if e := s.Events; e != nil {
		sec, err := resolve(e.SigningSecret, e.SigningSecretEnv, getenv, "signing_secret")
		if err != nil {
			return fmt.Errorf("events: %w", err)
		}
		if e.Listen == "" || sec == "" {
			return fmt.Errorf("events: listen and signing_secret (or signing_secret_env) are both needed; leave events out to use Socket Mode")
		}
		e.SigningSecret = sec
	} else if !strings.HasPrefix(app, "xapp-") {
		return fmt.Errorf("without events, Socket Mode needs app_token (or app_token_env), the app-level token xapp-... with scope connections:write; or set events to use the Events API")
	}
	if c := s.SlashCommand; c != "" && (!strings.HasPrefix(c, "/") || len(c) < 2 || strings.ContainsAny(c, " \t\n")) {
		return fmt.Errorf("slash_command %q is not a command name: write it as in the app's settings, such as /tandem", c)
	}
	return s.BridgeCommon.check(home)
}
