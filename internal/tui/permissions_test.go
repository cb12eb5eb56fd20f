package tui

import (
	"testing"

	"github.com/tandem-agent/tandem/internal/permission"
)

// permBackend judges with a real permission engine.
type permBackend struct {
	*fakeBackend
	eng *permission.Engine
}

func (b *permBackend) Features() Features {
	f := b.fakeBackend.Features()
	f.Permissions = b
	return f
}

func (b *permBackend) Rules() []permission.Rule { return b.eng.Rules() }
func (b *permBackend) Explain(r permission.Request) permission.Explanation {
	return b.eng.Explain(r)
}

func TestPermissionsListsRulesAndExplains(t *testing.T) {
	eng := permission.NewEngine(permission.EngineOptions{WorkDir: t.TempDir(),
		UserRules:    []permission.Rule{{Permission: "Bash", Pattern: "git push:*", Action: permission.ActionDeny, Source: "user ~/.tandem/config.json"}},
		ProjectRules: []permission.Rule{{Permission: "Bash", Pattern: "npm install:*", Action: permission.ActionAllow, Source: "project .claude/settings.json"}},
	})
	h := newHarness(t, Options{Backend: &permBackend{fakeBackend: newFake(), eng: eng}})
	h.slash("/permissions")
	h.mustShow("Mode: normal. Deny beats ask beats allow")
	h.mustShow("Bash(git push:*)  · user ~/.tandem/config.json")
	h.mustShow("Bash(npm install:*)  · project .claude/settings.json")
	for cmd, want := range map[string]string{
		"git push origin main": "git push origin main → deny (Bash(git push:*))",
		"npm install left-pad": "npm install left-pad → allow (Bash(npm install:*))",
		"rm -rf build":         "rm -rf build → ask (mode:normal): `rm -rf build`: rm",
		"Edit(/etc/passwd)":    "Edit(/etc/passwd) → ask",
		"ls -la && cat go.mod": "ls -la && cat go.mod → allow (read-only)",
	} {
		h.slash("/permissions why " + cmd)
		h.mustShow(want)
	}
	h.mustShow(`"allow always" would save Bash(rm -rf build)`)
}
