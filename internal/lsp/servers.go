package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tandem-agent/tandem/internal/config"
)

// Server is one language server as configured: the built-in entry with
// what the config changed.
type Server struct {
	Name string
	// Commands are tried in order; the first whose program is found runs
	// (pyright, then basedpyright).
	Commands    [][]string
	Extensions  []string
	LanguageIDs map[string]string // extension -> LSP language id
	RootMarkers []string
	Env         map[string]string
	InitOptions json.RawMessage
	Settings    json.RawMessage
}

// builtins are the servers tandem knows without configuration.
func builtins() map[string]Server {
	ts := map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".mts": "typescript", ".cts": "typescript",
		".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"}
	c := map[string]string{".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp"}
	return map[string]Server{
		"gopls": {Name: "gopls", Commands: [][]string{{"gopls"}}, LanguageIDs: map[string]string{".go": "go"},
			RootMarkers: []string{"go.work", "go.mod"}},
		"pyright": {Name: "pyright", Commands: [][]string{{"pyright-langserver", "--stdio"}, {"basedpyright-langserver", "--stdio"}},
			LanguageIDs: map[string]string{".py": "python", ".pyi": "python"},
			RootMarkers: []string{"pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"}},
		"typescript": {Name: "typescript", Commands: [][]string{{"typescript-language-server", "--stdio"}}, LanguageIDs: ts,
			RootMarkers: []string{"tsconfig.json", "jsconfig.json", "package.json"}},
		"rust-analyzer": {Name: "rust-analyzer", Commands: [][]string{{"rust-analyzer"}}, LanguageIDs: map[string]string{".rs": "rust"},
			RootMarkers: []string{"Cargo.toml"}},
		"clangd": {Name: "clangd", Commands: [][]string{{"clangd"}}, LanguageIDs: c,
			RootMarkers: []string{"compile_commands.json", "compile_flags.txt", ".clangd"}},
	}
}

// Settings is the "lsp" section checked, with its defaults filled in.
type Settings struct {
	Disabled       bool
	Tool           bool
	WaitMS         int
	StartMS        int
	MaxDiagnostics int
	// SettleMS is how long a server that tags no versions must be quiet
	// after a publish for it to be the answer.
	SettleMS int
	Servers  []Server // sorted by name; disabled ones left out
}

// Resolve checks the section and lays it over the built-in servers. Its
// errors name the key and the fix.
func Resolve(c *config.LSP) (Settings, error) {
	s := Settings{WaitMS: 3000, StartMS: 15000, MaxDiagnostics: 10, SettleMS: 600}
	servers := builtins()
	if c != nil {
		s.Disabled, s.Tool = c.Disabled, c.Tool
		for _, f := range []struct {
			key string
			v   int
			dst *int
		}{{"wait_ms", c.WaitMS, &s.WaitMS}, {"start_ms", c.StartMS, &s.StartMS}, {"max_diagnostics", c.MaxDiagnostics, &s.MaxDiagnostics}} {
			if f.v < 0 {
				return s, fmt.Errorf("lsp.%s is %d: give a number of 0 or more (0: the default)", f.key, f.v)
			}
			if f.v > 0 {
				*f.dst = f.v
			}
		}
		for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
			cs := c.Servers[name]
			if cs.Disabled {
				delete(servers, name)
				continue
			}
			srv, known := servers[name]
			srv.Name = name
			if len(cs.Command) > 0 {
				if cs.Command[0] == "" {
					return s, fmt.Errorf("lsp.servers.%s.command starts with an empty program name: name the server's program first", name)
				}
				srv.Commands = [][]string{cs.Command}
			}
			if len(cs.Extensions) > 0 {
				ids := map[string]string{}
				for _, e := range cs.Extensions {
					if !strings.HasPrefix(e, ".") || len(e) < 2 {
						return s, fmt.Errorf("lsp.servers.%s.extensions has %q: give file name endings with their dot, as \".go\"", name, e)
					}
					id := cs.LanguageID
					if id == "" {
						id = srv.LanguageIDs[e]
					}
					if id == "" {
						id = e[1:]
					}
					ids[e] = id
				}
				srv.LanguageIDs = ids
			} else if cs.LanguageID != "" {
				srv.LanguageIDs = maps.Clone(srv.LanguageIDs)
				for e := range srv.LanguageIDs {
					srv.LanguageIDs[e] = cs.LanguageID
				}
			}
			if cs.RootMarkers != nil {
				srv.RootMarkers = cs.RootMarkers
			}
			if cs.Env != nil {
				srv.Env = cs.Env
			}
			if cs.InitializationOptions != nil {
				srv.InitOptions = cs.InitializationOptions
			}
			if cs.Settings != nil {
				srv.Settings = cs.Settings
			}
			if !known && (len(srv.Commands) == 0 || len(srv.LanguageIDs) == 0) {
				return s, fmt.Errorf("lsp.servers.%s is not a built-in server (%s): give it a command and extensions",
					name, strings.Join(slices.Sorted(maps.Keys(builtins())), ", "))
			}
			servers[name] = srv
		}
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		srv := servers[name]
		srv.Extensions = slices.Sorted(maps.Keys(srv.LanguageIDs))
		s.Servers = append(s.Servers, srv)
	}
	return s, nil
}

// serverFor is the server for a file, by its name's ending; false when
// none serves it.
func (s Settings) serverFor(path string) (Server, string, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, srv := range s.Servers {
		if id, ok := srv.LanguageIDs[ext]; ok {
			return srv, id, true
		}
	}
	return Server{}, "", false
}

// findCommand is the first of srv's commands whose program is on path
// (a PATH value) or in one of dirs, with the program made absolute.
func findCommand(srv Server, path string, dirs []string) ([]string, error) {
	for _, cmd := range srv.Commands {
		if prog := lookPath(cmd[0], path, dirs); prog != "" {
			return append([]string{prog}, cmd[1:]...), nil
		}
	}
	var names []string
	for _, cmd := range srv.Commands {
		names = append(names, cmd[0])
	}
	return nil, fmt.Errorf("%s: %s is not installed (not on PATH): install it or set lsp.servers.%s.command, or turn it off with lsp.servers.%s.disabled",
		srv.Name, strings.Join(names, " or "), srv.Name, srv.Name)
}

func lookPath(prog, path string, dirs []string) string {
	if filepath.IsAbs(prog) {
		if isExecutable(prog) {
			return prog
		}
		return ""
	}
	if strings.ContainsRune(prog, filepath.Separator) {
		return "" // a relative path would depend on the folder tandem runs in
	}
	for _, d := range append(filepath.SplitList(path), dirs...) {
		if d == "" || !filepath.IsAbs(d) {
			continue // "." on PATH would run a program of the repository
		}
		if p := filepath.Join(d, prog); isExecutable(p) {
			return p
		}
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// rootFor is the folder a server for file runs in: the nearest folder
// holding one of markers, from file's folder up to (and including) bound;
// bound itself when none does.
func rootFor(file, bound string, markers []string) string {
	dir := filepath.Dir(file)
	for {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == bound || !within(dir, bound) {
			return bound
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return bound
		}
		dir = parent
	}
}

// within reports whether p is root or under it.
func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
