package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A project file may not set bridges (nor their tokens); the user file
// may, with tokens read from the variables it names.
func TestBridgesOnlyFromTheUserFile(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, ".tandem"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(dir, "user.json")
	project := filepath.Join(work, ".tandem", "config.json")
	bridges := `{"bridges": {"telegram": {"token_env": "TG_TOKEN", "allow_users": ["42"], "folders": ["` + work + `"]}}}`
	for _, f := range []string{user, project} {
		if err := os.WriteFile(f, []byte(bridges), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(user, project); err == nil || !strings.Contains(err.Error(), "bridges") || !strings.Contains(err.Error(), "user config") {
		t.Fatalf("a project's bridges: %v", err)
	}
	if err := os.Remove(project); err != nil {
		t.Fatal(err)
	}
	c, err := Load(user, project)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.BridgeConfig(func(string) string { return "" }, dir); err == nil || !strings.Contains(err.Error(), "TG_TOKEN") {
		t.Errorf("an unset token variable: %v", err)
	}
	b, err := c.BridgeConfig(func(k string) string { return map[string]string{"TG_TOKEN": "123:abc"}[k] }, dir)
	if err != nil || b.Telegram == nil || b.Telegram.Token != "123:abc" || b.Telegram.AllowUsers[0] != "42" {
		t.Fatalf("bridges = %+v, %v", b.Telegram, err)
	}
}
