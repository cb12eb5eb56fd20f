package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Serve is the "serve" section: what a team's `tandem serve` needs beyond
// its flags (docs/accounts.md). Read only from the user file: a project
// must not choose who signs in to the server or what they may spend.
type Serve struct {
	OIDC *OIDC `json:"oidc,omitempty"`
	// UserDailyBudgetUSD caps what one user's turns cost per UTC day
	// (0: no cap). Each turn's own max_budget_usd still applies.
	UserDailyBudgetUSD float64 `json:"user_daily_budget_usd,omitempty"`
	// UserMaxTurns caps how many turns one user runs at once (0: no cap).
	UserMaxTurns int `json:"user_max_concurrent_turns,omitempty"`
}

// OIDC is sign-in for the web UI with an OpenID Connect provider (Google,
// Microsoft Entra, Okta, Keycloak, GitLab, ...).
type OIDC struct {
	Issuer   string `json:"issuer"`
	ClientID string `json:"client_id"`
	// ClientSecretEnv names the environment variable holding the client
	// secret (kept out of the file); ClientSecret is accepted too.
	ClientSecret    string `json:"client_secret,omitempty"`
	ClientSecretEnv string `json:"client_secret_env,omitempty"`
	// RedirectURL is the address the provider sends users back to
	// (https://HOST/auth/callback); empty: built from the request's Host.
	RedirectURL string `json:"redirect_url,omitempty"`
	// AllowedDomains are email domains whose (verified) users may sign
	// in; AllowedGroups are values of the "groups" claim. A user matching
	// either is created on first sign-in; with neither set nobody is.
	AllowedDomains []string `json:"allowed_email_domains,omitempty"`
	AllowedGroups  []string `json:"allowed_groups,omitempty"`
	// Admins are email addresses made admins when they first sign in.
	Admins []string `json:"admins,omitempty"`
}

// ServeSettings decodes the serve section, strictly.
func (c *Config) ServeSettings() (Serve, error) {
	var s Serve
	if len(c.Serve) == 0 {
		return s, nil
	}
	dec := json.NewDecoder(bytes.NewReader(c.Serve))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Serve{}, fmt.Errorf("config %s: serve: %w (see docs/accounts.md)", c.SectionSource("serve"), err)
	}
	if s.UserDailyBudgetUSD < 0 || s.UserMaxTurns < 0 {
		return Serve{}, fmt.Errorf("config %s: serve: user_daily_budget_usd and user_max_concurrent_turns must not be negative", c.SectionSource("serve"))
	}
	if o := s.OIDC; o != nil {
		if err := o.check(); err != nil {
			return Serve{}, fmt.Errorf("config %s: serve.oidc: %w", c.SectionSource("serve"), err)
		}
	}
	return s, nil
}

func (o *OIDC) check() error {
	u, err := url.Parse(o.Issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("issuer %q must be the provider's URL (https://accounts.google.com, https://login.microsoftonline.com/TENANT/v2.0, ...)", o.Issuer)
	}
	if o.ClientID == "" {
		return fmt.Errorf("client_id is missing: register tandem with the provider and copy its client id")
	}
	if o.ClientSecret == "" && o.ClientSecretEnv == "" {
		return fmt.Errorf("give client_secret_env (the environment variable holding the client secret) or client_secret")
	}
	if len(o.AllowedDomains) == 0 && len(o.AllowedGroups) == 0 {
		return fmt.Errorf("set allowed_email_domains or allowed_groups: with neither, nobody could sign in")
	}
	for _, d := range o.AllowedDomains {
		if d == "" || strings.ContainsAny(d, "@/ ") {
			return fmt.Errorf("allowed_email_domains: %q is not a domain (example.com)", d)
		}
	}
	return nil
}

// Secret is the client secret: from ClientSecretEnv when set.
func (o *OIDC) Secret() (string, error) {
	if o.ClientSecretEnv != "" {
		v := os.Getenv(o.ClientSecretEnv)
		if v == "" {
			return "", fmt.Errorf("serve.oidc: %s is empty: export the client secret in it", o.ClientSecretEnv)
		}
		return v, nil
	}
	return o.ClientSecret, nil
}
