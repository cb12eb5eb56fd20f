package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/tool"
)

// A project skill's allowed-tools are granted only in a trusted folder,
// whatever its name: skills named after a reserved command (help, status,
// cost, ...) in .claude/skills and .agents/skills escaped the check, and
// loading one gave the model Bash unasked. A /command's allowed-tools the
// same. Left out, the skill still runs.
func TestProjectSkillGrantsNeedTrust(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
		names := append([]string{"deploy"}, skills.BuiltinCommands...)
		for i, n := range names {
			dir := ".claude/skills"
			if i%2 == 1 {
				dir = ".agents/skills"
			}
			writeTestFile(t, filepath.Join(work, dir, n, "SKILL.md"), "---\nname: "+n+"\ndescription: d\nallowed-tools: Bash(touch:*)\n---\nbody\n")
		}
		if trusted {
			if _, err := a.Trust.Add(work); err != nil {
				t.Fatal(err)
			}
		}
		l, err := a.Manager.Open(context.Background(), session.OpenRequest{Cwd: work, Mode: "normal"})
		if err != nil {
			t.Fatal(err)
		}
		explain := func() permission.Action {
			return l.Explain(permission.Request{Tool: "Bash", Input: json.RawMessage(`{"command":"touch x"}`)}).Action
		}
		want := permission.ActionAsk
		if trusted {
			want = permission.ActionAllow
		}
		sk, _ := l.Tools().Get("Skill")
		for _, n := range names {
			in, _ := json.Marshal(map[string]string{"skill": n})
			res, err := sk.Execute(context.Background(), tool.Call{ID: "toolu_" + n, Name: "Skill", Input: in, Env: l.Env()})
			if err != nil || res.IsError {
				t.Fatalf("skill %s did not run: %v %+v", n, err, res)
			}
			if got := explain(); got != want {
				t.Errorf("trusted=%v: after skill %s, Bash(touch x) is %s, want %s", trusted, n, got, want)
			}
			l.Env().State.EndTurn()
		}
		exp := l.Equipment().(*Equipment).ExpandPrompt(context.Background(), "/deploy now")
		if exp.Prompt == "/deploy now" {
			t.Fatal("/deploy was not expanded")
		}
		if got := explain(); got != want {
			t.Errorf("trusted=%v: after /deploy, Bash(touch x) is %s, want %s", trusted, got, want)
		}
		l.Env().State.EndTurn()
		l.Close()
	}
}

// A project agent, skill or command naming another provider's model
// (model: openai/...) would send the conversation there: left out of an
// untrusted folder (the parent's model runs it), kept when trusted.
func TestProjectModelNeedsTrust(t *testing.T) {
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
	writeTestFile(t, filepath.Join(work, ".claude/agents/rev.md"), "---\nname: rev\ndescription: d\nmodel: openai/gpt-5\n---\nReview.\n")
	writeTestFile(t, filepath.Join(work, ".claude/agents/quick.md"), "---\nname: quick\ndescription: d\nmodel: haiku\n---\nQuick.\n")
	writeTestFile(t, filepath.Join(work, ".claude/skills/fork/SKILL.md"), "---\nname: fork\ndescription: d\ncontext: fork\nmodel: openai/gpt-5\n---\nF\n")
	writeTestFile(t, filepath.Join(work, ".claude/commands/c.md"), "---\ndescription: d\nmodel: openai/gpt-5\n---\nC\n")
	models := func() map[string]string {
		ext, err := a.ExtensionsFor(work)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, d := range ext.Agents {
			out["agent "+d.Name] = d.Model
		}
		for _, s := range ext.Skills {
			out["skill "+s.Name] = s.Model
		}
		for _, c := range ext.Commands {
			out["command "+c.Name] = c.Model
		}
		return out
	}
	got := models()
	if got["agent rev"] != "" || got["skill fork"] != "" || got["command c"] != "" || got["agent quick"] != "haiku" {
		t.Errorf("untrusted: %v", got)
	}
	st, err := a.TrustStatus(work)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range st.NeedsTrust {
		if f.Key == "model" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("findings: %+v", st.NeedsTrust)
	}
	if _, err := a.Trust.Add(work); err != nil {
		t.Fatal(err)
	}
	if got := models(); got["agent rev"] != "openai/gpt-5" || got["skill fork"] != "openai/gpt-5" {
		t.Errorf("trusted: %v", got)
	}
}
