package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The discord entry takes its token from the variable it names and
// refuses one without a token.
func TestDiscordBridgeConfig(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	write := func(s string) *Config {
		t.Helper()
		if err := os.WriteFile(user, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(user, "")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := write(`{"bridges": {"discord": {"token_env": "DC_TOKEN", "allow_users": ["4200"], "folders": ["` + dir + `"]}}}`)
	env := func(k string) string { return map[string]string{"DC_TOKEN": "abc.def"}[k] }
	b, err := c.BridgeConfig(env, dir)
	if err != nil || b.Discord == nil || b.Discord.Token != "abc.def" || b.Discord.AllowUsers[0] != "4200" {
		t.Fatalf("discord = %+v, %v", b.Discord, err)
	}
	c = write(`{"bridges": {"discord": {"allow_users": ["4200"], "folders": ["` + dir + `"]}}}`)
	if _, err := c.BridgeConfig(env, dir); err == nil || !strings.Contains(err.Error(), "bridges.discord") || !strings.Contains(err.Error(), "token_env") {
		t.Errorf("no token: %v", err)
	}
}

// The feishu entry takes its secret from the variable it names and
// refuses one without an app id.
func TestFeishuBridgeConfig(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	load := func(s string) *Config {
		t.Helper()
		if err := os.WriteFile(user, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(user, "")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	env := func(k string) string { return map[string]string{"FS_SECRET": "sec"}[k] }
	c := load(`{"bridges": {"feishu": {"app_id": "cli_1", "app_secret_env": "FS_SECRET", "allow_users": ["ou_1"], "folders": ["` + dir + `"]}}}`)
	b, err := c.BridgeConfig(env, dir)
	if err != nil || b.Feishu == nil || b.Feishu.AppSecret != "sec" || b.Feishu.AppID != "cli_1" {
		t.Fatalf("feishu = %+v, %v", b.Feishu, err)
	}
	c = load(`{"bridges": {"feishu": {"app_secret_env": "FS_SECRET", "allow_users": ["ou_1"], "folders": ["` + dir + `"]}}}`)
	if _, err := c.BridgeConfig(env, dir); err == nil || !strings.Contains(err.Error(), "bridges.feishu") || !strings.Contains(err.Error(), "app_id") {
		t.Errorf("no app id: %v", err)
	}
	env = func(k string) string {
		return map[string]string{"FS_SECRET": "sec", "FS_TOKEN": "tok", "FS_KEY": "key"}[k]
	}
	c = load(`{"bridges": {"feishu": {"app_id": "cli_1", "app_secret_env": "FS_SECRET", "allow_users": ["ou_1"], "folders": ["` + dir + `"],
		"webhook": {"listen": "127.0.0.1:9000", "verification_token_env": "FS_TOKEN", "encrypt_key_env": "FS_KEY"}}}}`)
	b, err = c.BridgeConfig(env, dir)
	if err != nil || b.Feishu.Webhook == nil || b.Feishu.Webhook.VerificationToken != "tok" || b.Feishu.Webhook.EncryptKey != "key" {
		t.Fatalf("feishu webhook = %+v, %v", b.Feishu.Webhook, err)
	}
	c = load(`{"bridges": {"feishu": {"app_id": "cli_1", "app_secret_env": "FS_SECRET", "allow_users": ["ou_1"], "folders": ["` + dir + `"],
		"webhook": {"listen": "127.0.0.1:9000"}}}}`)
	if _, err := c.BridgeConfig(env, dir); err == nil || !strings.Contains(err.Error(), "verification_token") {
		t.Errorf("a webhook without a token: %v", err)
	}
}
