package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// bridgesUserOnly is the refusal of "bridges" in a project file.
const bridgesUserOnly = "is read only from your user config (a project cannot connect your sessions to a chat or hold bot tokens): remove it here and set it in your user config"

// Bridges is the "bridges" section of the user config: one entry per
// chat platform `tandem bridge` (and `tandem serve`) connects.
type Bridges struct {
	Telegram *TelegramBridge `json:"telegram,omitempty"`
	Slack    *SlackBridge    `json:"slack,omitempty"`
	Discord  *DiscordBridge  `json:"discord,omitempty"`
	Feishu   *FeishuBridge   `json:"feishu,omitempty"`
}

// BridgeCommon is what every platform's bridge takes.
type BridgeCommon struct {
	// AllowUsers are the platform user ids who may prompt and answer
	// permission questions; everyone else is ignored (and logged).
	AllowUsers []string `json:"allow_users"`
	// Folders are the folders (with their subfolders) chats may start
	// sessions in; ~ is the home folder.
	Folders []string `json:"folders"`
	// Model and Mode are new sessions' defaults ("": the config's).
	Model string `json:"model,omitempty"`
	Mode  string `json:"mode,omitempty"`
	// Owner is, inside `tandem serve` with accounts, the account (name or
	// id) that owns the sessions chats start ("": none, as for sessions
	// the server token starts). `tandem bridge` alone ignores it.
	Owner string `json:"owner,omitempty"`
}

// TelegramBridge is a Telegram bot.
type TelegramBridge struct {
	BridgeCommon
	// Token (or TokenEnv, the variable holding it) is the bot's token
	// from @BotFather.
	Token    string `json:"token,omitempty"`
	TokenEnv string `json:"token_env,omitempty"`
	// APIURL is the Bot API server ("": https://api.telegram.org; a
	// local Bot API server's address).
	APIURL  string           `json:"api_url,omitempty"`
	Webhook *TelegramWebhook `json:"webhook,omitempty"`
}

// TelegramWebhook receives updates by webhook instead of long polling.
type TelegramWebhook struct {
	Listen    string `json:"listen"`
	URL       string `json:"url"`
	Secret    string `json:"secret,omitempty"`
	SecretEnv string `json:"secret_env,omitempty"`
}

// BridgeConfig decodes and checks the "bridges" section; getenv reads
// the variables tokens are named by, home expands ~ in folders.
func (c *Config) BridgeConfig(getenv func(string) string, home string) (Bridges, error) {
	var b Bridges
	if len(bytes.TrimSpace(c.Bridges)) == 0 {
		return b, nil
	}
	dec := json.NewDecoder(bytes.NewReader(c.Bridges))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, &Error{File: c.SectionSource("bridges"), Field: "bridges", Msg: fmt.Sprintf("%v: see docs/bridges.md for the fields", err)}
	}
	if t := b.Telegram; t != nil {
		if err := t.check(getenv, home); err != nil {
			return b, &Error{File: c.SectionSource("bridges"), Field: "bridges.telegram", Msg: err.Error()}
		}
	}
	if s := b.Slack; s != nil {
		if err := s.check(getenv, home); err != nil {
			return b, &Error{File: c.SectionSource("bridges"), Field: "bridges.slack", Msg: err.Error()}
		}
	}
	if d := b.Discord; d != nil {
		if err := d.check(getenv, home); err != nil {
			return b, &Error{File: c.SectionSource("bridges"), Field: "bridges.discord", Msg: err.Error()}
		}
	}
	if f := b.Feishu; f != nil {
		if err := f.check(getenv, home); err != nil {
			return b, &Error{File: c.SectionSource("bridges"), Field: "bridges.feishu", Msg: err.Error()}
		}
	}
	return b, nil
}

// resolve returns the value given directly or by variable name.
func resolve(value, env string, getenv func(string) string, what string) (string, error) {
	switch {
	case value != "" && env != "":
		return "", fmt.Errorf("both %s and %s_env are set: keep one", what, what)
	case env != "":
		v := strings.TrimSpace(getenv(env))
		if v == "" {
			return "", fmt.Errorf("%s_env names %s, which is not set: export it, or give %s", what, env, what)
		}
		return v, nil
	}
	return value, nil
}

func (b *BridgeCommon) check(home string) error {
	if len(b.AllowUsers) == 0 {
		return fmt.Errorf("allow_users is empty: list the user ids who may use the bridge (nobody else can)")
	}
	if len(b.Folders) == 0 {
		return fmt.Errorf("folders is empty: list the folders chats may start sessions in")
	}
	for i, f := range b.Folders {
		if rest, ok := strings.CutPrefix(f, "~"); ok && (rest == "" || rest[0] == '/') {
			f = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(f) {
			return fmt.Errorf("folder %q is not absolute: write its full path (or ~/...)", f)
		}
		if st, err := os.Stat(f); err != nil || !st.IsDir() {
			return fmt.Errorf("folder %s is not a folder: create it or remove it from folders", f)
		}
		b.Folders[i] = f
	}
	return nil
}

func (t *TelegramBridge) check(getenv func(string) string, home string) error {
	tok, err := resolve(t.Token, t.TokenEnv, getenv, "token")
	if err != nil {
		return err
	}
	if tok == "" {
		return fmt.Errorf("no bot token: set token_env to the variable holding the token @BotFather gave (or token)")
	}
	t.Token = tok
	if w := t.Webhook; w != nil {
		s, err := resolve(w.Secret, w.SecretEnv, getenv, "secret")
		if err != nil {
			return fmt.Errorf("webhook: %w", err)
		}
		if w.Listen == "" || w.URL == "" || s == "" {
			return fmt.Errorf("webhook: listen, url and secret (or secret_env) are all needed; leave webhook out to poll")
		}
		w.Secret = s
	}
	return t.BridgeCommon.check(home)
}
