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
	"github.com/tandem-agent/tandem/internal/strictjson"
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

// ClaudeFile is one Claude Code settings file, decoded once: the folder
// trust check judges this value and LoadClaudeSettings applies it, so the
// two cannot disagree. Keys are case-sensitive and may appear once (see
// internal/strictjson); keys tandem does not know are skipped, as Claude
// Code's own files hold many.
type ClaudeFile struct {
	Path string `json:"-"`
	// Base is the folder its `/path` rules are relative to.
	Base string `json:"-"`
	// User is ~/.claude/settings.json; the others are the project's.
	User bool `json:"-"`

	Permissions ClaudePermissions `json:"permissions"`
	Hooks       hooks.Config      `json:"hooks"`
	// OutputStyle names the output style (internal/outputstyle), as
	// Claude Code's "outputStyle".
	OutputStyle string `json:"outputStyle"`
	// The rest are applied by the Claude Code CLI itself (the claude-code
	// runtime); tandem reads them only to know whether the folder's
	// settings need trust, and keeps the CLI from reading a file that sets
	// them when the folder is not trusted.
	Env                        json.RawMessage `json:"env"`
	APIKeyHelper               json.RawMessage `json:"apiKeyHelper"`
	AWSAuthRefresh             json.RawMessage `json:"awsAuthRefresh"`
	AWSCredentialExport        json.RawMessage `json:"awsCredentialExport"`
	OtelHeadersHelper          json.RawMessage `json:"otelHeadersHelper"`
	StatusLine                 json.RawMessage `json:"statusLine"`
	EnableAllProjectMcpServers json.RawMessage `json:"enableAllProjectMcpServers"`
	EnabledMcpjsonServers      json.RawMessage `json:"enabledMcpjsonServers"`
}

// ClaudePermissions is a settings file's "permissions" object.
type ClaudePermissions struct {
	Allow                 []string `json:"allow"`
	Ask                   []string `json:"ask"`
	Deny                  []string `json:"deny"`
	DefaultMode           string   `json:"defaultMode"`
	AdditionalDirectories []string `json:"additionalDirectories"`
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
	// StatusLine is the last statusLine found (project over user; an
	// untrusted folder's project files have lost it to the trust check),
	// as written; the terminal UI runs it (internal/app/statusline.go).
	StatusLine     json.RawMessage
	StatusLineFile string
}

// ReadClaudeSettings reads ~/.claude/settings.json (user layer; skipped
// when homeDir is "") and, when project is true, the project's
// .claude/settings.json and .claude/settings.local.json (internal/places
// names them). Missing files are skipped; malformed ones are errors naming
// the file and the fix.
func ReadClaudeSettings(workDir, homeDir string, project bool) ([]ClaudeFile, error) {
	var out []ClaudeFile
	var files []ClaudeFile
	for _, p := range places.Paths(homeDir, places.Home(), places.Settings) {
		files = append(files, ClaudeFile{Path: p, Base: homeDir, User: true})
	}
	for _, p := range places.Paths(workDir, places.Project(), places.Settings) {
		files = append(files, ClaudeFile{Path: p, Base: workDir})
	}
	for _, f := range files {
		if (homeDir == "" && f.User) || (!project && !f.User) {
			continue
		}
		data, err := readSettings(f.Path, workDir, f.User)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read Claude Code settings %s: %w", f.Path, err)
		}
		if err := strictjson.Unmarshal(data, &f); err != nil {
			return nil, fmt.Errorf("parse Claude Code settings %s: %w", f.Path, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// BuildClaudeLayers turns decoded settings files into rules, hooks and
// settings, weakest file first.
func BuildClaudeLayers(files []ClaudeFile) (ClaudeLayers, error) {
	var out ClaudeLayers
	var hs []hooks.Config
	for _, f := range files {
		cfg := Config{Allow: f.Permissions.Allow, Ask: f.Permissions.Ask, Deny: f.Permissions.Deny}
		rules, err := cfg.ToRules(f.Path, f.Base)
		if err != nil {
			return out, fmt.Errorf("rules in Claude Code settings %s: %w", f.Path, err)
		}
		if f.User {
			out.UserRules = append(out.UserRules, rules...)
		} else {
			out.ProjectRules = append(out.ProjectRules, rules...)
		}
		if f.Permissions.DefaultMode != "" {
			out.DefaultMode, out.DefaultModeFile = f.Permissions.DefaultMode, f.Path
		}
		out.AdditionalDirectories = append(out.AdditionalDirectories, f.Permissions.AdditionalDirectories...)
		if len(f.StatusLine) > 0 && string(f.StatusLine) != "null" {
			out.StatusLine, out.StatusLineFile = f.StatusLine, f.Path // project over user
		}
		hs = append(hs, f.Hooks)
		out.Files = append(out.Files, f.Path)
	}
	out.Hooks = hooks.Merge(hs...)
	return out, nil
}

// LoadClaudeSettings reads and builds the user's and the project's Claude
// Code settings, all of them applied (a trusted folder).
func LoadClaudeSettings(workDir, homeDir string) (ClaudeLayers, error) {
	files, err := ReadClaudeSettings(workDir, homeDir, true)
	if err != nil {
		return ClaudeLayers{}, err
	}
	return BuildClaudeLayers(files)
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
