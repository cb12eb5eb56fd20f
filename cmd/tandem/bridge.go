package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/bridge"
	"github.com/tandem-agent/tandem/internal/bridge/telegram"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/session"
)

func newBridgeCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "bridge",
		Short: "Drive sessions from chat apps (the bridges of your user config)",
		Long: `Connects the chat bridges of the "bridges" section of your user config
(Telegram, Slack, Discord, Feishu/Lark) and runs until interrupted: a chat is bound to a session
with /new DIR or /resume ID, its messages become prompts, answers stream
back and permission questions arrive as buttons. Only the users listed in
allow_users are heard. See docs/bridges.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := app.Open(app.Options{Home: g.home, Version: version(), Stderr: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			defer a.Close()
			ctx, stop := interruptContext(cmd.Context())
			defer stop()
			wait, n, err := startBridges(ctx, a, cmd.ErrOrStderr(), nil)
			if err != nil {
				return err
			}
			if n == 0 {
				return errors.New(`no bridge is configured: add a "bridges" section to your user config (docs/bridges.md)`)
			}
			wait()
			return nil
		},
	}
}

// hostFor gives a bridge the sessions it opens (`tandem serve`: the
// server's); nil, or a nil host: its own over the app's session manager.
type hostFor func(platform string, c config.BridgeCommon) (session.Host, error)

// startBridges connects every bridge of the user config until ctx ends;
// wait returns when they have stopped. n is how many started.
func startBridges(ctx context.Context, a *app.App, w io.Writer, hosts hostFor) (wait func(), n int, err error) {
	cfg, err := a.User.BridgeConfig(os.Getenv, userHome())
	if err != nil {
		return nil, 0, err
	}
	logger := log.New(w, "", log.LstdFlags)
	var tokens []string
	var runs []*bridge.Bridge
	if t := cfg.Telegram; t != nil {
		tc := telegram.Config{Token: t.Token, APIURL: t.APIURL}
		if wh := t.Webhook; wh != nil {
			tc.Webhook = &telegram.Webhook{Listen: wh.Listen, URL: wh.URL, Secret: wh.Secret}
			tokens = append(tokens, wh.Secret)
		}
		plat, err := telegram.New(tc)
		if err != nil {
			return nil, 0, err
		}
		tokens = append(tokens, t.Token)
		b, err := bridge.New(plat, bridgeOptions(a, t.BridgeCommon, logger, nil))
		if err != nil {
			return nil, 0, err
		}
		runs = append(runs, b)
	}
	if s := cfg.Slack; s != nil {
		b, secrets, err := slackBridge(a, s, logger)
		if err != nil {
			return nil, 0, err
		}
		tokens = append(tokens, secrets...)
		runs = append(runs, b)
	}
	if d := cfg.Discord; d != nil {
		b, err := discordBridge(a, d, logger)
		if err != nil {
			return nil, 0, err
		}
		tokens = append(tokens, d.Token)
		runs = append(runs, b)
	}
	if f := cfg.Feishu; f != nil {
		b, secrets, err := feishuBridge(a, f, logger)
		if err != nil {
			return nil, 0, err
		}
		tokens = append(tokens, secrets...)
		runs = append(runs, b)
	}
	red := bridgeRedactor(a.User, tokens)
	if hosts != nil {
		common := bridgeCommons(cfg)
		for _, b := range runs {
			h, err := hosts(b.Platform(), common[b.Platform()])
			if err != nil {
				return nil, 0, fmt.Errorf("bridges.%s: %w", b.Platform(), err)
			}
			b.SetHost(h)
		}
	}
	var wg sync.WaitGroup
	for _, b := range runs {
		b.SetRedactor(red)
		wg.Add(1)
		go func() { defer wg.Done(); _ = b.Run(ctx) }()
	}
	for _, name := range bridgeNames(cfg) {
		fmt.Fprintf(w, "tandem bridge: %s connected (allowed users only; Ctrl-C stops)\n", name)
	}
	return wg.Wait, len(runs), nil
}

func bridgeOptions(a *app.App, c config.BridgeCommon, logger *log.Logger, red *secrets.Redactor) bridge.Options {
	return bridge.Options{Manager: a.Manager, Records: a.Store, Allow: c.AllowUsers, Folders: c.Folders,
		Model: c.Model, Mode: c.Mode, Log: logger, Redact: red}
}

// bridgeCommons are the configured bridges' common settings by platform.
func bridgeCommons(cfg config.Bridges) map[string]config.BridgeCommon {
	out := map[string]config.BridgeCommon{}
	if t := cfg.Telegram; t != nil {
		out["telegram"] = t.BridgeCommon
	}
	if s := cfg.Slack; s != nil {
		out["slack"] = s.BridgeCommon
	}
	if d := cfg.Discord; d != nil {
		out["discord"] = d.BridgeCommon
	}
	if f := cfg.Feishu; f != nil {
		out["feishu"] = f.BridgeCommon
	}
	return out
}

func bridgeNames(cfg config.Bridges) []string {
	var out []string
	if cfg.Telegram != nil {
		out = append(out, "telegram")
	}
	if cfg.Slack != nil {
		out = append(out, "slack")
	}
	if cfg.Discord != nil {
		out = append(out, "discord")
	}
	if cfg.Feishu != nil {
		out = append(out, "feishu")
	}
	return out
}

// bridgeRedactor blanks, in everything sent to a chat, the well-known
// credentials of this process's environment, the provider keys the user
// config names or holds, and the bridges' own tokens.
func bridgeRedactor(user *config.Config, tokens []string) *secrets.Redactor {
	var names []string
	env := os.Environ()
	add := func(v string) {
		if v == "" {
			return
		}
		name := fmt.Sprintf("TANDEM_BRIDGE_SECRET_%d", len(names))
		names = append(names, name)
		env = append(env, name+"="+v)
	}
	for _, t := range tokens {
		add(t)
	}
	for _, p := range user.Providers {
		if p.APIKeyEnv != "" {
			names = append(names, p.APIKeyEnv)
		}
		add(p.APIKey)
	}
	return secrets.New(names, nil).Redactor(env)
}

func userHome() string {
	h, _ := os.UserHomeDir()
	return h
}
