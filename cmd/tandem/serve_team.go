package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/server"
)

// teamOptions reads the user config's serve section (OpenID Connect
// sign-in, per-user limits) into the server's options.
func teamOptions(a *app.App, o *server.Options) error {
	st, err := a.User.ServeSettings()
	if err != nil {
		return err
	}
	o.Limits = server.Limits{DailyBudgetUSD: st.UserDailyBudgetUSD, MaxTurns: st.UserMaxTurns}
	if c := st.OIDC; c != nil {
		secret, err := c.Secret()
		if err != nil {
			return err
		}
		o.OIDC = &server.OIDCOptions{Issuer: c.Issuer, ClientID: c.ClientID, ClientSecret: secret, RedirectURL: c.RedirectURL,
			AllowedDomains: c.AllowedDomains, AllowedGroups: c.AllowedGroups, Admins: c.Admins}
	}
	return nil
}

// teamSandbox says whether sessions must run in the OS sandbox because
// the server has users (or signs them in): one user's agent must not read
// another's workspace. An explicit --sandbox/--no-sandbox decides instead.
func teamSandbox(ctx context.Context, a *app.App, flagMode string, w io.Writer) (bool, error) {
	if flagMode != "" {
		return false, nil
	}
	st, err := a.User.ServeSettings()
	if err != nil {
		return false, err
	}
	has, err := accounts.New(a.Store).HasUsers(ctx)
	if err != nil {
		return false, err
	}
	if !has && st.OIDC == nil {
		return false, nil
	}
	fmt.Fprintln(w, "tandem serve: users exist, so every session runs in the OS sandbox (docs/sandbox.md; --no-sandbox to refuse it)")
	return true, nil
}
