package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/projectfile"
)

// Settings are the keys of tandem's config files that gate project
// servers, named as Claude Code names them. Only the user's own config is
// honoured for them: a repository must not approve its own servers.
type Settings struct {
	EnableAllProjectMcpServers bool     `json:"enableAllProjectMcpServers,omitempty"`
	EnabledMcpjsonServers      []string `json:"enabledMcpjsonServers,omitempty"`
	DisabledMcpjsonServers     []string `json:"disabledMcpjsonServers,omitempty"`
}

// Policy builds the gate for project folder project.
func (s Settings) Policy(project string, approvals Approvals, trust bool) Policy {
	return Policy{Project: project, Approvals: approvals, Trust: trust,
		EnableAllProjectServers: s.EnableAllProjectMcpServers,
		EnabledProjectServers:   s.EnabledMcpjsonServers, DisabledProjectServers: s.DisabledMcpjsonServers}
}

// Paths locates the three files servers come from.
type Paths struct {
	User    string // $XDG_CONFIG_HOME/tandem/config.json
	Local   string // <project>/.tandem/config.json
	Project string // <project>/.mcp.json
}

// ProjectPaths returns the usual paths for a project folder.
func ProjectPaths(userConfig, projectDir string) Paths {
	return Paths{User: userConfig, Local: places.Path(projectDir, places.Project(), places.Config),
		Project: places.Path(projectDir, places.Project(), places.MCP)}
}

// PathFor returns the file of a scope.
func (p Paths) PathFor(scope string) (string, error) {
	switch scope {
	case ScopeUser:
		return p.User, nil
	case ScopeLocal:
		return p.Local, nil
	case ScopeProject:
		return p.Project, nil
	}
	return "", fmt.Errorf("unknown scope %q (want local, project or user)", scope)
}

// LoadAll reads the three files, merges them (user < project .mcp.json <
// local .tandem/config.json, as Claude Code ranks user < project < local)
// and reads the gating Settings from the user's config. Bad entries are
// reported and left out; the rest load.
func LoadAll(p Paths) (Servers, Settings, []error) {
	var errs []error
	layer := func(path, scope string) Servers {
		if path == "" {
			return nil
		}
		s, e := loadFile(path, scope)
		errs = append(errs, e...)
		return s
	}
	user := layer(p.User, ScopeUser)
	project := layer(p.Project, ScopeProject)
	local := layer(p.Local, ScopeLocal)
	settings, err := loadSettings(p.User)
	if err != nil {
		errs = append(errs, err)
	}
	return Merge(user, project, local), settings, errs
}

func loadSettings(path string) (Settings, error) {
	var s Settings
	if path == "" {
		return s, nil
	}
	data, err := projectfile.ReadOwn(path, projectfile.SettingsLimit)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return Settings{}, fmt.Errorf("%s: project server settings: %w", path, err)
	}
	return s, nil
}

// WithScope returns s with scope and file recorded on every entry (for
// callers that decode mcpServers themselves, like the config package).
func (s Servers) WithScope(scope, file string) Servers {
	out := make(Servers, len(s))
	for n, c := range s {
		c.Scope, c.File = scope, file
		out[n] = c
	}
	return out
}
