package agenttools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/subagent"
	"github.com/tandem-agent/tandem/internal/tool"
)

type recordingGranter struct {
	granted []*skills.Skill
	revoked int
}

func (g *recordingGranter) GrantSkill(sk *skills.Skill, _ string) func() {
	g.granted = append(g.granted, sk)
	return func() { g.revoked++ }
}

func catalog(t *testing.T) *skills.Catalog {
	t.Helper()
	root := t.TempDir()
	for name, body := range map[string]string{
		"notes/SKILL.md":   "---\nname: notes\ndescription: Notes style.\nallowed-tools: Bash(python3 *)\ndisallowed-tools: Write\n---\nNOTES $ARGUMENTS\n",
		"private/SKILL.md": "---\nname: private\ndescription: User only.\ndisable-model-invocation: true\n---\nP\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return skills.Load(skills.Places{Skills: []skills.Place{{Dir: root, Scope: skills.ScopeProject}}})
}

func run(t *testing.T, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(input)
	res, err := tl.Execute(context.Background(), tool.Call{ID: "toolu_1", Name: tl.Name(), Input: raw, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSkillTool(t *testing.T) {
	g := &recordingGranter{}
	sk := &Skill{Catalog: catalog(t), Granter: g}
	if d := sk.Description(); !strings.Contains(d, "- notes: Notes style.") || strings.Contains(d, "private") {
		t.Errorf("listing:\n%s", d)
	}
	env := tool.NewEnv("s", t.TempDir(), nil, t.TempDir())
	res := run(t, sk, env, map[string]string{"skill": "notes", "args": "today"})
	if res.IsError || !strings.Contains(res.Content, "NOTES today") || !strings.Contains(res.Content, "Base directory for this skill: ") {
		t.Errorf("inline skill result: %+v", res)
	}
	if len(g.granted) != 1 || g.granted[0].Name != "notes" {
		t.Errorf("grants: %+v", g.granted)
	}
	if g.revoked != 0 {
		t.Error("an inline skill's grant ended before the turn")
	}
	env.State.EndTurn()
	if g.revoked != 1 {
		t.Error("the grant did not end with the turn")
	}
	if res := run(t, sk, env, map[string]string{"skill": "private"}); !res.IsError || !strings.Contains(res.Content, "only be run by the user") {
		t.Errorf("disable-model-invocation: %+v", res)
	}
	if res := run(t, sk, env, map[string]string{"skill": "nope"}); !res.IsError || !strings.Contains(res.Content, "Available skills: notes") {
		t.Errorf("unknown skill: %+v", res)
	}
	if res := run(t, sk, env, map[string]any{"skill": 3}); !res.IsError {
		t.Errorf("bad input: %+v", res)
	}
}

func TestAgentToolUnknownType(t *testing.T) {
	a := &Agent{Runner: &subagent.Runner{Agents: subagent.Load(nil, skills.Place{}, skills.Place{})}}
	if d := a.Description(); !strings.Contains(d, "- general-purpose: ") || !strings.Contains(d, "- Explore: ") {
		t.Errorf("agent listing:\n%s", d)
	}
	res := run(t, a, nil, map[string]string{"description": "x", "prompt": "y", "subagent_type": "nobody"})
	if !res.IsError || !strings.Contains(res.Content, "Available agents: general-purpose, Explore") {
		t.Errorf("unknown agent: %+v", res)
	}
	if res := run(t, a, nil, map[string]string{"description": "x", "prompt": " "}); !res.IsError {
		t.Errorf("empty prompt: %+v", res)
	}
}
