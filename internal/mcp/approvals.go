package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/tandem-agent/tandem/internal/regular"
)

// Approvals remembers which project (.mcp.json) servers the user allowed to
// run, per project folder. A project's .mcp.json arrives with a cloned
// repository and starts commands, so it must not run unasked.
type Approvals interface {
	Approved(project, server string) bool
	Approve(project, server string) error
	Revoke(project, server string) error
}

// FileApprovals keeps approvals in a JSON file:
// {"projects": {"/abs/project": ["server", ...]}}.
type FileApprovals struct {
	path string
	mu   sync.Mutex
}

// ApprovalsFile is where NewFileApprovals keeps its file under the data dir.
const ApprovalsFile = "mcp-approvals.json"

// NewFileApprovals returns approvals stored in dataDir/mcp-approvals.json.
func NewFileApprovals(dataDir string) *FileApprovals {
	return &FileApprovals{path: filepath.Join(dataDir, ApprovalsFile)}
}

type approvalsDoc struct {
	Projects map[string][]string `json:"projects"`
}

func (a *FileApprovals) load() (approvalsDoc, error) {
	doc := approvalsDoc{Projects: map[string][]string{}}
	data, err := regular.ReadFile(a.path)
	if errors.Is(err, os.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, fmt.Errorf("read mcp approvals: %w", err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return doc, fmt.Errorf("parse mcp approvals %s: %w", a.path, err)
	}
	if doc.Projects == nil {
		doc.Projects = map[string][]string{}
	}
	return doc, nil
}

func (a *FileApprovals) save(doc approvalsDoc) error {
	if err := os.MkdirAll(filepath.Dir(a.path), 0o700); err != nil {
		return fmt.Errorf("save mcp approvals: %w", err)
	}
	data, _ := json.MarshalIndent(doc, "", "  ")
	tmp := a.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save mcp approvals: %w", err)
	}
	return os.Rename(tmp, a.path)
}

func projectKey(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return filepath.Clean(abs)
	}
	return p
}

// Approved reports whether server is approved in project. A file that
// cannot be read approves nothing.
func (a *FileApprovals) Approved(project, server string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	doc, err := a.load()
	return err == nil && slices.Contains(doc.Projects[projectKey(project)], server)
}

// Approve records the approval.
func (a *FileApprovals) Approve(project, server string) error {
	return a.update(project, func(list []string) []string {
		if slices.Contains(list, server) {
			return list
		}
		list = append(list, server)
		slices.Sort(list)
		return list
	})
}

// Revoke forgets the approval.
func (a *FileApprovals) Revoke(project, server string) error {
	return a.update(project, func(list []string) []string {
		return slices.DeleteFunc(list, func(s string) bool { return s == server })
	})
}

func (a *FileApprovals) update(project string, f func([]string) []string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	doc, err := a.load()
	if err != nil {
		return err
	}
	key := projectKey(project)
	list := f(slices.Clone(doc.Projects[key]))
	if len(list) == 0 {
		delete(doc.Projects, key)
	} else {
		doc.Projects[key] = list
	}
	return a.save(doc)
}

// Policy decides whether project-scope servers may run. Its fields mirror
// Claude Code's settings of the same meaning.
type Policy struct {
	Project   string    // project folder, the approvals key
	Approvals Approvals // may be nil: nothing remembered
	// Trust runs every server (trust mode, --dangerously-skip-permissions).
	Trust bool
	// EnableAllProjectServers is the user's enableAllProjectMcpServers.
	EnableAllProjectServers bool
	// EnabledProjectServers / DisabledProjectServers are the user's
	// enabledMcpjsonServers / disabledMcpjsonServers.
	EnabledProjectServers  []string
	DisabledProjectServers []string
}

// NeedsApproval reports whether entries of scope come from files inside the
// project folder, which a cloned repository can carry: .mcp.json and
// .tandem/config.json. Entries with no scope count as the user's own.
func NeedsApproval(scope string) bool { return scope == ScopeProject || scope == ScopeLocal }

// Allowed reports whether the server may start. Servers from the user's own
// config always may; servers from project files need trust, the
// user's blanket setting, a listing in enabledMcpjsonServers or a recorded
// approval. disabledMcpjsonServers wins over all but trust.
func (p Policy) Allowed(name string, c ServerConfig) bool {
	if !NeedsApproval(c.Scope) || p.Trust {
		return true
	}
	if slices.Contains(p.DisabledProjectServers, name) {
		return false
	}
	if p.EnableAllProjectServers || slices.Contains(p.EnabledProjectServers, name) {
		return true
	}
	return p.Approvals != nil && p.Approvals.Approved(p.Project, name)
}

// Runnable returns the servers that may start under p (not disabled, and
// approved where needed) and the names held back for want of approval, for
// callers that start servers elsewhere (the claude-code runtime).
func (s Servers) Runnable(p Policy) (Servers, []string) {
	run := Servers{}
	var blocked []string
	for _, name := range s.Names() {
		c := s[name]
		switch {
		case c.Disabled:
		case !p.Allowed(name, c):
			blocked = append(blocked, name)
		default:
			run[name] = c
		}
	}
	return run, blocked
}
