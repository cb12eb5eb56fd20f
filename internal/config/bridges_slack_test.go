package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Slack's tokens come from the variables the user file names; Socket
// Mode needs the app-level token, the Events API a signing secret.
func TestSlackBridgeConfig(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	load := func(slack string) (Bridges, error) {
		t.Helper()
		if err := os.WriteFile(user, []byte(`{"bridges": {"slack": `+slack+`}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(user, filepath.Join(dir, "none.json"))
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"BOT": "xoxb-1-2-abc", "APP": "xapp-1-A-3-def", "SIGN": "s3cret"}
		return c.BridgeConfig(func(k string) string { return env[k] }, dir)
	}
	common := `"allow_users": ["U0123ABC"], "folders": ["` + dir + `"]`
	b, err := load(`{"bot_token_env": "BOT", "app_token_env": "APP", ` + common + `}`)
	if err != nil || b.Slack == nil || b.Slack.BotToken != "xoxb-1-2-abc" || b.Slack.AppToken != "xapp-1-A-3-def" {
		t.Fatalf("socket mode: %+v, %v", b.Slack, err)
	}
	if _, err := load(`{"bot_token_env": "BOT", ` + common + `}`); err == nil || !strings.Contains(err.Error(), "app_token") {
		t.Errorf("socket mode without an app token: %v", err)
	}
	if _, err := load(`{"bot_token": "xoxp-user-token", "app_token_env": "APP", ` + common + `}`); err == nil || !strings.Contains(err.Error(), "xoxb-") {
		t.Errorf("a user token as the bot token: %v", err)
	}
	if _, err := load(`{"bot_token_env": "BOT", "app_token_env": "APP", "slash_command": "tandem", ` + common + `}`); err == nil || !strings.Contains(err.Error(), "slash_command") {
		t.Errorf("a slash command without its slash: %v", err)
	}
	if b, err := load(`{"bot_token_env": "BOT", "app_token_env": "APP", "slash_command": "/td", ` + common + `}`); err != nil || b.Slack.SlashCommand != "/td" {
		t.Errorf("slash_command: %+v, %v", b.Slack, err)
	}
	b, err = load(`{"bot_token_env": "BOT", "events": {"listen": "127.0.0.1:3000", "signing_secret_env": "SIGN"}, ` + common + `}`)
	if err != nil || b.Slack.Events.SigningSecret != "s3cret" {
		t.Fatalf("events: %+v, %v", b.Slack, err)
	}
	if _, err := load(`{"bot_token_env": "BOT", "events": {"listen": "127.0.0.1:3000"}, ` + common + `}`); err == nil || !strings.Contains(err.Error(), "signing_secret") {
		t.Errorf("events without a signing secret: %v", err)
	}
}
