package config

// userOnlyKeys are the settings only the user's own config may hold: a
// cloned repository's .tandem/config.json setting one is refused with
// the reason, never silently dropped. The one list of them: Load checks
// it and UserOnlyKeys gives it to the folder-trust tests.
func userOnlyKeys() []userOnlyKey {
	return []userOnlyKey{
		// A cloned repository must not be able to approve its own servers.
		{"enableAllProjectMcpServers", func(c *Config) bool { return c.EnableAllProjectMcpServers },
			"is read only from your user config (a project cannot approve its own MCP servers): move it there, or approve a server with `tandem mcp enable NAME`"},
		{"enabledMcpjsonServers", func(c *Config) bool { return len(c.EnabledMcpjsonServers) > 0 },
			"is read only from your user config (a project cannot approve its own MCP servers): move it there, or approve a server with `tandem mcp enable NAME`"},
		// Where sessions go (and with what credentials) is the user's
		// choice: a repository must not send them to a server of its own.
		{"database", func(c *Config) bool { return c.Database != "" },
			"is read only from your user config (a project cannot choose where your sessions are stored): remove it here and set it in your user config, or set TANDEM_DATABASE_URL"},
		{"serve", func(c *Config) bool { return len(c.Serve) > 0 },
			"is read only from your user config (a project cannot choose who signs in to your server): move it there"},
		{"bridges", func(c *Config) bool { return len(c.Bridges) > 0 }, bridgesUserOnly},
		{"telemetry", func(c *Config) bool { return !c.Telemetry.IsZero() },
			"is read only from your user config (a project cannot turn on telemetry export or choose its collector): remove it here and set it in your user config, or use the OTEL_* environment variables"},
	}
}

type userOnlyKey struct {
	field string
	set   func(*Config) bool
	why   string
}

// UserOnlyKeys names the top-level keys a project file may not set.
func UserOnlyKeys() []string {
	var out []string
	for _, k := range userOnlyKeys() {
		out = append(out, k.field)
	}
	return out
}

// checkUserOnly refuses a project layer that sets a user-only key.
func checkUserOnly(file string, layer *Config) error {
	for _, k := range userOnlyKeys() {
		if k.set(layer) {
			return &Error{File: file, Field: k.field, Msg: k.why}
		}
	}
	return nil
}
