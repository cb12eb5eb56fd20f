package places_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/tools"
)

// The loaders find their files through this package, so every folder or
// file they read is one the permission engine protects: a Write there asks
// even in trust mode and offers no "allow always".
func TestEveryLoadedPlaceIsProtected(t *testing.T) {
	cwd, home, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
	var targets []string
	sp := skills.DefaultPlaces(cwd, home, cfgDir)
	for _, p := range append(sp.Skills, sp.Commands...) {
		targets = append(targets, filepath.Join(p.Dir, "x", "SKILL.md"))
	}
	mp := mcp.ProjectPaths(filepath.Join(cfgDir, "config.json"), cwd)
	targets = append(targets, config.ProjectFile(cwd), mp.Local, mp.Project, mp.User,
		places.Path(cwd, places.Project(), places.Agents)+"/a.md", places.Path(home, places.Home(), places.Agents)+"/a.md")
	for _, list := range []struct {
		root string
		l    []places.Place
	}{{cwd, places.Project()}, {home, places.Home()}, {cfgDir, places.InConfigDir()}} {
		for _, pl := range list.l {
			targets = append(targets, pl.Path(list.root), filepath.Join(pl.Path(list.root), "inner"))
		}
	}
	asked := 0
	asker := permission.AskerFunc(func(_ context.Context, q permission.Question) (permission.Answer, error) {
		asked++
		if len(q.Rules) > 0 {
			t.Errorf("%s: allow always offered: %v", q.Summary, q.Rules)
		}
		return permission.Answer{Decision: permission.DenyCall}, nil
	})
	e := permission.NewEngine(permission.EngineOptions{Tools: tools.Lookup(), Mode: permission.Trust, WorkDir: cwd, HomeDir: home, ConfigDir: cfgDir, Asker: asker})
	for _, p := range targets {
		raw, _ := json.Marshal(map[string]string{"file_path": p, "content": "x"})
		before := asked
		if _, err := e.Check(context.Background(), permission.Request{Tool: "Write", Input: raw}); err != nil {
			t.Fatal(err)
		}
		if asked == before {
			t.Errorf("a Write to %s, which tandem loads from, ran unasked in trust mode", p)
		}
	}
}

// A worktree's files are a workspace's files; its own places, the
// worktrees folder and each worktree's folder stay protected.
func TestWorktreeFilesAreJudgedInTheirWorktree(t *testing.T) {
	r := places.Roots{}
	for p, want := range map[string]bool{
		"/repo/.claude/worktrees/x/main.go":               false,
		"/repo/.claude/worktrees/x/src/a/b.go":            false,
		"/repo/.Claude/Worktrees/x/main.go":               false,
		"/repo/.claude/worktrees/x/.claude/settings.json": true,
		"/repo/.claude/worktrees/x/AGENTS.md":             true,
		"/repo/.claude/worktrees/x/.mcp.json":             true,
		"/repo/.claude/worktrees/x":                       true,
		"/repo/.claude/worktrees":                         true,
		"/repo/.claude/worktrees/x/.claude/worktrees/y/a": false,
		"/repo/.claude/settings.json":                     true,
		"/repo/.claude/agents/x/worktrees/y/z.md":         true,
	} {
		if _, got := r.Match(p); got != want {
			t.Errorf("Match(%s) = %v, want %v", p, got, want)
		}
	}
}
