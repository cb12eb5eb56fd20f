// Package mcp is tandem's Model Context Protocol client: configuration of
// the user's MCP servers (tandem's config files and Claude Code's .mcp.json),
// approval of servers that arrive with a cloned project, and a connection
// Manager that turns each server's tools into tool.Tool values.
package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile"
)

// Transport types a server entry may name.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
	TypeWS    = "ws"
)

// Scopes say where an entry was defined; project entries (.mcp.json) need
// the user's approval before they run.
const (
	ScopeUser    = "user"    // $XDG_CONFIG_HOME/tandem/config.json
	ScopeLocal   = "local"   // .tandem/config.json in the project (needs approval too)
	ScopeProject = "project" // .mcp.json in the project (Claude Code's shared file)
)

// DefaultCallTimeout bounds one tool call when the entry sets no timeout.
// Long enough for builds and searches, short enough that a hung server does
// not stall a turn forever.
const DefaultCallTimeout = 120 * time.Second

// ServerConfig is one entry of "mcpServers". Field names follow Claude Code
// (type, command, args, env, url, headers) plus Crush's tool filters.
type ServerConfig struct {
	Type          string            `json:"type,omitempty"`
	Command       string            `json:"command,omitempty"`
	Args          []string          `json:"args,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	Cwd           string            `json:"cwd,omitempty"`
	URL           string            `json:"url,omitempty"`
	Headers       map[string]string `json:"headers,omitempty"`
	Timeout       Duration          `json:"timeout,omitempty"`
	Disabled      bool              `json:"disabled,omitempty"`
	EnabledTools  []string          `json:"enabled_tools,omitempty"`
	DisabledTools []string          `json:"disabled_tools,omitempty"`
	// OAuth configures the sign-in of an http or sse server (see
	// OAuthConfig); nil: defaults (dynamic client registration).
	OAuth *OAuthConfig `json:"oauth,omitempty"`

	// Scope and File record where the entry came from (not serialised).
	Scope string `json:"-"`
	File  string `json:"-"`
}

// Servers maps server names to their entries.
type Servers map[string]ServerConfig

// TransportType is Type with the default filled in: stdio when a command
// is set, http when only a url is.
func (c ServerConfig) TransportType() string {
	if c.Type != "" {
		return c.Type
	}
	if c.Command == "" && c.URL != "" {
		return TypeHTTP
	}
	return TypeStdio
}

// CallTimeout is the per-call limit for this server's tools.
func (c ServerConfig) CallTimeout() time.Duration {
	if c.Timeout > 0 {
		return time.Duration(c.Timeout)
	}
	return DefaultCallTimeout
}

// FieldError names the file, server and field of a bad entry.
type FieldError struct {
	File   string
	Server string
	Field  string
	Msg    string
}

func (e *FieldError) Error() string {
	loc := "mcpServers." + e.Server
	if e.Field != "" {
		loc += "." + e.Field
	}
	if e.File != "" {
		return fmt.Sprintf("%s: %s: %s", e.File, loc, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// Validate checks one entry; name is its key in mcpServers.
func (c ServerConfig) Validate(name string) error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{File: c.File, Server: name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if name == "" {
		return bad("", "server name is empty")
	}
	if SanitizeName(name) != name {
		return bad("", "server name %q may only contain letters, digits, '_' and '-'", name)
	}
	switch c.TransportType() {
	case TypeStdio:
		if strings.TrimSpace(c.Command) == "" {
			return bad("command", "a stdio server needs a command (or set type to http, sse or ws with a url)")
		}
		if c.URL != "" {
			return bad("url", "a stdio server takes a command, not a url")
		}
	case TypeHTTP, TypeSSE, TypeWS:
		if c.URL == "" {
			return bad("url", "a %s server needs a url", c.TransportType())
		}
		if c.Command != "" {
			return bad("command", "a %s server takes a url, not a command", c.TransportType())
		}
		if !strings.Contains(c.URL, "${") && !validURL(c.URL, c.TransportType()) {
			return bad("url", "%q is not an absolute %s url", c.URL, urlSchemes(c.TransportType()))
		}
	case TypeSDK:
		if c.Command != "" || c.URL != "" {
			return bad("type", "an sdk server lives in the program that started tandem: it takes neither a command nor a url")
		}
	default:
		return bad("type", "unknown type %q (want stdio, http, sse or ws)", c.Type)
	}
	if c.Timeout < 0 {
		return bad("timeout", "must not be negative")
	}
	if c.OAuth != nil {
		if t := c.TransportType(); t != TypeHTTP && t != TypeSSE {
			return bad("oauth", "only http and sse servers sign in with OAuth")
		}
		if f, msg := c.OAuth.validate(); f != "" {
			return bad(f, "%s", msg)
		}
	}
	if len(c.EnabledTools) > 0 && len(c.DisabledTools) > 0 {
		return bad("enabled_tools", "set enabled_tools or disabled_tools, not both")
	}
	return nil
}

func urlSchemes(typ string) string {
	if typ == TypeWS {
		return "ws:// or wss://"
	}
	return "http:// or https://"
}

func validURL(u, typ string) bool {
	if typ == TypeWS {
		return strings.HasPrefix(u, "ws://") || strings.HasPrefix(u, "wss://")
	}
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

// Validate checks every entry and returns the entries that passed along
// with one error per bad entry, so one typo does not stop the other servers.
func (s Servers) Validate() (Servers, []error) {
	good := Servers{}
	var errs []error
	for _, name := range s.Names() {
		if err := s[name].Validate(name); err != nil {
			errs = append(errs, err)
			continue
		}
		good[name] = s[name]
	}
	return good, errs
}

// Names returns the server names sorted.
func (s Servers) Names() []string {
	out := make([]string, 0, len(s))
	for n := range s {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Merge combines layers; a later layer's entry replaces an earlier one of
// the same name (pass user, then local, then project).
func Merge(layers ...Servers) Servers {
	out := Servers{}
	for _, l := range layers {
		for n, c := range l {
			out[n] = c
		}
	}
	return out
}

// ParseServers decodes an "mcpServers" object. Each entry is decoded on its
// own, so a malformed one is reported (file, server, field) and skipped.
// scope and file are recorded on every entry.
func ParseServers(raw json.RawMessage, scope, file string) (Servers, []error) {
	out := Servers{}
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return out, []error{fmt.Errorf("%s: mcpServers must be an object of server entries: %w", file, err)}
	}
	var errs []error
	for name, data := range entries {
		c, err := decodeEntry(data)
		if err != nil {
			errs = append(errs, &FieldError{File: file, Server: name, Field: err.field, Msg: err.msg})
			continue
		}
		c.Scope, c.File = scope, file
		if err := c.Validate(name); err != nil {
			errs = append(errs, err)
			continue
		}
		out[name] = c
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return out, errs
}

type entryError struct{ field, msg string }

// decodeEntry decodes field by field so a type error names its field.
func decodeEntry(data json.RawMessage) (ServerConfig, *entryError) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return ServerConfig{}, &entryError{msg: "entry must be a JSON object"}
	}
	var c ServerConfig
	targets := map[string]any{
		"type": &c.Type, "command": &c.Command, "args": &c.Args, "env": &c.Env,
		"cwd": &c.Cwd, "url": &c.URL, "headers": &c.Headers, "timeout": &c.Timeout,
		"disabled": &c.Disabled, "enabled_tools": &c.EnabledTools, "disabled_tools": &c.DisabledTools,
		"oauth": &c.OAuth,
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t, ok := targets[k]
		if !ok {
			continue // Claude Code fields we do not use (alwaysLoad, ...)
		}
		if err := json.Unmarshal(fields[k], t); err != nil {
			return ServerConfig{}, &entryError{field: k, msg: describeTypeError(k, err)}
		}
	}
	return c, nil
}

func describeTypeError(field string, err error) string {
	want := map[string]string{
		"args": "an array of strings", "env": "an object of strings", "headers": "an object of strings",
		"enabled_tools": "an array of strings", "disabled_tools": "an array of strings",
		"disabled": "true or false", "timeout": `seconds (a number) or a duration string like "90s"`,
		"oauth": `an object like {"clientId": "...", "callbackPort": 8080}`,
	}[field]
	if want == "" {
		want = "a string"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("must be %s, not a JSON %s", want, te.Value)
	}
	return fmt.Sprintf("must be %s: %v", want, err)
}

// LoadProjectFile reads a Claude Code style .mcp.json. A missing file is
// not an error (no servers). Entries get ScopeProject.
func LoadProjectFile(path string) (Servers, []error) {
	return loadFile(path, ScopeProject)
}

// LoadConfigFile reads the mcpServers key of a tandem config.json (or any
// JSON file with that key) and records scope on the entries.
func LoadConfigFile(path, scope string) (Servers, []error) {
	return loadFile(path, scope)
}

func loadFile(path, scope string) (Servers, []error) {
	data, err := ReadServersFile(path, scope)
	if errors.Is(err, os.ErrNotExist) {
		return Servers{}, nil
	}
	if err != nil {
		return Servers{}, []error{fmt.Errorf("read mcp config: %w", err)}
	}
	var doc struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Servers{}, []error{fmt.Errorf("%s: not valid JSON: %w", path, err)}
	}
	return ParseServers(doc.MCPServers, scope, path)
}

// ReadServersFile reads a file servers come from (for loading, and for
// `tandem mcp add` editing it): a project's (.mcp.json, or
// .tandem/config.json for the local scope) through projectfile, so a link
// out of the repository, a FIFO or an oversized file is refused naming
// it; the user's capped.
func ReadServersFile(path, scope string) ([]byte, error) {
	switch scope {
	case ScopeProject: // <project>/.mcp.json
		return projectfile.Read(filepath.Dir(path), path, projectfile.SettingsLimit)
	case ScopeLocal: // <project>/.tandem/config.json
		return projectfile.Read(filepath.Dir(filepath.Dir(path)), path, projectfile.SettingsLimit)
	}
	return projectfile.ReadOwn(path, projectfile.SettingsLimit)
}

// Duration is a timeout in config: a number of seconds or a Go duration
// string ("90s", "2m").
type Duration time.Duration

// UnmarshalJSON accepts seconds or a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*d = 0
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		if secs, err := strconv.ParseFloat(str, 64); err == nil {
			*d = Duration(secs * float64(time.Second))
			return nil
		}
		v, err := time.ParseDuration(str)
		if err != nil {
			return fmt.Errorf("bad duration %q", str)
		}
		*d = Duration(v)
		return nil
	}
	secs, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("got %s", s)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}

// MarshalJSON writes whole seconds as a number, anything else as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	v := time.Duration(d)
	if v%time.Second == 0 {
		return []byte(strconv.FormatInt(int64(v/time.Second), 10)), nil
	}
	return json.Marshal(v.String())
}
