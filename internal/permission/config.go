package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/projectfile"
)

// Config is the "permissions" section of tandem's config files.
type Config struct {
	// Mode is the default mode (explore, normal, trust, or a Claude Code name).
	Mode string `json:"mode,omitempty"`
	// Allow, Ask and Deny hold rules in Claude Code syntax: "Bash(npm test:*)".
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
	// Rules hold rules in tandem's structured form.
	Rules []Rule `json:"rules,omitempty"`
	// AdditionalDirectories are extra workspace roots.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	// Hooks are Claude Code-compatible command hooks.
	Hooks hooks.Config `json:"hooks,omitempty"`
}

// Validate names the first bad field and how to fix it.
func (c Config) Validate() error {
	if c.Mode != "" {
		if _, err := ParseMode(c.Mode); err != nil {
			return fmt.Errorf("permissions.mode: %w", err)
		}
	}
	_, err := c.ToRules("", "")
	if err != nil {
		return err
	}
	for i, d := range c.AdditionalDirectories {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("permissions.additionalDirectories[%d] is empty: give a folder path", i)
		}
	}
	if err := c.Hooks.Validate(); err != nil {
		return fmt.Errorf("permissions.%w", err)
	}
	return nil
}

// ToRules returns every rule of the config, labelled with source and with
// `/path` patterns relative to base.
func (c Config) ToRules(source, base string) ([]Rule, error) {
	var out []Rule
	for _, list := range []struct {
		name   string
		action Action
		rules  []string
	}{{"allow", ActionAllow, c.Allow}, {"ask", ActionAsk, c.Ask}, {"deny", ActionDeny, c.Deny}} {
		for i, s := range list.rules {
			r, err := ParseRule(s, list.action)
			if err != nil {
				return nil, fmt.Errorf("permissions.%s[%d]: %w", list.name, i, err)
			}
			r.Source, r.Base = source, base
			out = append(out, r)
		}
	}
	for i, r := range c.Rules {
		if r.Pattern == "*" {
			r.Pattern = ""
		}
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("permissions.rules[%d]: %w", i, err)
		}
		r.Source, r.Base = source, base
		out = append(out, r)
	}
	return out, nil
}

// claudeSettings is the part of Claude Code's settings.json tandem reads.
type claudeSettings struct {
	Permissions struct {
		Allow                 []string `json:"allow"`
		Ask                   []string `json:"ask"`
		Deny                  []string `json:"deny"`
		DefaultMode           string   `json:"defaultMode"`
		AdditionalDirectories []string `json:"additionalDirectories"`
	} `json:"permissions"`
	Hooks hooks.Config `json:"hooks"`
}

// ClaudeLayers are the rules, hooks and settings read from Claude Code's
// settings files.
type ClaudeLayers struct {
	UserRules    []Rule // ~/.claude/settings.json
	ProjectRules []Rule // .claude/settings.json and .claude/settings.local.json
	Hooks        hooks.Config
	// DefaultMode is the last defaultMode found (project over user), and
	// DefaultModeFile the settings file it came from.
	DefaultMode           string
	DefaultModeFile       string
	AdditionalDirectories []string
	// Files lists the settings files that existed.
	Files []string
}

// LoadClaudeSettings reads ~/.claude/settings.json (user layer) and the
// project's .claude/settings.json and .claude/settings.local.json (project
// layer). Missing files are skipped; malformed ones are errors naming the
// file.
func LoadClaudeSettings(workDir, homeDir string) (ClaudeLayers, error) {
	var out ClaudeLayers
	type file struct {
		path, base string
		user       bool
	}
	var files []file
	for _, p := range places.Paths(homeDir, places.Home(), places.Settings) {
		files = append(files, file{p, homeDir, true})
	}
	for _, p := range places.Paths(workDir, places.Project(), places.Settings) {
		files = append(files, file{p, workDir, false})
	}
	var hs []hooks.Config
	for _, f := range files {
		if homeDir == "" && f.user {
			continue
		}
		data, err := readSettings(f.path, workDir, f.user)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("read Claude Code settings %s: %w", f.path, err)
		}
		var s claudeSettings
		if err := json.Unmarshal(data, &s); err != nil {
			return out, fmt.Errorf("parse Claude Code settings %s: %w", f.path, err)
		}
		cfg := Config{Allow: s.Permissions.Allow, Ask: s.Permissions.Ask, Deny: s.Permissions.Deny}
		rules, err := cfg.ToRules(f.path, f.base)
		if err != nil {
			return out, fmt.Errorf("rules in Claude Code settings %s: %w", f.path, err)
		}
		if f.user {
			out.UserRules = append(out.UserRules, rules...)
		} else {
			out.ProjectRules = append(out.ProjectRules, rules...)
		}
		if s.Permissions.DefaultMode != "" {
			out.DefaultMode, out.DefaultModeFile = s.Permissions.DefaultMode, f.path
		}
		out.AdditionalDirectories = append(out.AdditionalDirectories, s.Permissions.AdditionalDirectories...)
		hs = append(hs, s.Hooks)
		out.Files = append(out.Files, f.path)
	}
	out.Hooks = hooks.Merge(hs...)
	return out, nil
}

// readSettings reads one settings file: the project's through projectfile
// (inside the repository, no credential, regular, capped), the user's
// capped.
func readSettings(path, workDir string, user bool) ([]byte, error) {
	if user {
		return projectfile.ReadOwn(path, projectfile.SettingsLimit)
	}
	return projectfile.Read(workDir, path, projectfile.SettingsLimit)
}

// ParseToolFlags reads --allowedTools / --disallowedTools values: each
// value may hold several rules separated by commas or spaces outside
// parentheses ("Bash(git log:*),Edit" or "Bash(npm test) Read").
func ParseToolFlags(values []string, action Action) ([]Rule, error) {
	var out []Rule
	flag := "--allowedTools"
	if action == ActionDeny {
		flag = "--disallowedTools"
	}
	for _, v := range values {
		for _, item := range SplitToolList(v) {
			r, err := ParseRule(item, action)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", flag, err)
			}
			r.Source = "flag " + flag
			out = append(out, r)
		}
	}
	return out, nil
}

// SplitToolList splits a list of tools or rules at commas and white space
// outside parentheses: "Read,Bash(git log:*)" and "Read Edit" are both
// lists, and the space inside "Bash(npm run test)" is kept.
func SplitToolList(s string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if item := strings.TrimSpace(s[start:end]); item != "" {
			out = append(out, item)
		}
		start = end + 1
	}
	for i, ch := range s {
		switch {
		case ch == '(':
			depth++
		case ch == ')' && depth > 0:
			depth--
		case (ch == ',' || ch == ' ' || ch == '\n' || ch == '\t') && depth == 0:
			flush(i)
		}
	}
	flush(len(s))
	return out
}
