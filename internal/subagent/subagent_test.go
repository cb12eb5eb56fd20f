package subagent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/tool"
)

type namedTool string

func (n namedTool) Name() string            { return string(n) }
func (n namedTool) Description() string     { return "" }
func (n namedTool) Schema() json.RawMessage { return json.RawMessage(`{}`) }
func (n namedTool) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}

func TestAgentFiles(t *testing.T) {
	proj, user := t.TempDir(), t.TempDir()
	files := map[string]string{
		filepath.Join(proj, "reader.md"):  "---\nname: reader\ndescription: Reads.\ntools: Read, Grep\nmodel: haiku\npermissionMode: plan\nmaxTurns: 5\nskills: [style]\neffort: low\n---\nYou read.\n",
		filepath.Join(proj, "listed.md"):  "---\nname: listed\ndescription: Lists.\ntools:\n  - Glob\n  - Bash(ls:*)\ndisallowedTools: Write\n---\nYou list.\n",
		filepath.Join(proj, "nodesc.md"):  "---\nname: nodesc\n---\nNo description.\n",
		filepath.Join(proj, "badyaml.md"): "---\nname: [unclosed\n---\n",
		filepath.Join(proj, "badmode.md"): "---\nname: badmode\ndescription: Bad mode.\npermissionMode: sideways\nmaxTurns: many\n---\nP\n",
		filepath.Join(user, "reader.md"):  "---\nname: reader\ndescription: User reader.\n---\nU\n",
	}
	for p, c := range files {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := ParseConfig(json.RawMessage(`{"cfgagent":{"description":"From config","prompt":"P","tools":["Read"],"permissionMode":"plan"}}`), "config.json")
	if err != nil {
		t.Fatal(err)
	}
	c := Load(cfg, skills.Place{Dir: proj, Scope: skills.ScopeProject}, skills.Place{Dir: user, Scope: skills.ScopeUser})
	r := c.Get("reader")
	if r == nil || r.Description != "Reads." || !slices.Equal(r.Tools, []string{"Read", "Grep"}) || r.Model != "haiku" ||
		r.PermissionMode != permission.Explore || r.MaxTurns != 5 || !slices.Equal(r.Skills, []string{"style"}) || r.Effort != "low" || r.Prompt != "You read." {
		t.Errorf("reader = %+v", r)
	}
	if l := c.Get("listed"); l == nil || !slices.Equal(l.Tools, []string{"Glob", "Bash(ls:*)"}) || !slices.Equal(l.DisallowedTools, []string{"Write"}) {
		t.Errorf("listed = %+v", l)
	}
	if c.Get("nodesc") != nil || c.Get("badyaml") != nil {
		t.Error("agents without a description or with bad YAML must be skipped")
	}
	if b := c.Get("badmode"); b == nil || b.PermissionMode != "" || b.MaxTurns != 0 {
		t.Errorf("badmode = %+v (bad fields fall back)", b)
	}
	var warned []string
	for _, w := range c.Warnings {
		warned = append(warned, filepath.Base(w.File)+":"+w.Field)
	}
	for _, want := range []string{"nodesc.md:", "badyaml.md:", "badmode.md:permissionMode", "badmode.md:maxTurns"} {
		if !slices.Contains(warned, want) {
			t.Errorf("warnings %v lack %s", warned, want)
		}
	}
	if len(c.Notices) != 1 || !strings.Contains(c.Notices[0], `agent "reader": using the project one`) {
		t.Errorf("notices = %v", c.Notices)
	}
	if g := c.Get("cfgagent"); g == nil || g.Scope != skills.ScopeConfig || g.Config().PermissionMode != "plan" {
		t.Errorf("config agent = %+v", g)
	}
	if c.Get("") == nil || c.Get("explore") == nil {
		t.Error("built-ins missing (\"\" is general-purpose; names match case-insensitively)")
	}
	if _, err := ParseConfig(json.RawMessage(`{"x":{"description":"d"}}`), "config.json"); err == nil || !strings.Contains(err.Error(), `"agents.x"`) {
		t.Errorf("missing prompt: %v", err)
	}
}

func TestChildToolsOnlyNarrow(t *testing.T) {
	parent := tool.NewRegistry(namedTool("Read"), namedTool("Grep"), namedTool("Write"), namedTool("Bash"),
		namedTool("mcp__gh__issue"), namedTool("Agent"), namedTool("Skill"))
	r := &Runner{Bind: func(_ *Runner, p Parent) []tool.Tool { return []tool.Tool{namedTool("Agent"), namedTool("Skill")} }}
	names := func(def *Def, depth int) []string {
		p := Parent{Tools: parent, Depth: depth}
		return r.childTools(p, Parent{Tools: parent, Depth: depth + 1}, def).Names()
	}
	if got := names(&Def{Tools: []string{"Read", "Grep", "Nonexistent"}}, 0); !slices.Equal(got, []string{"Grep", "Read"}) {
		t.Errorf("Read+Grep agent: %v", got)
	}
	if got := names(&Def{DisallowedTools: []string{"Write", "mcp__gh"}}, 0); !slices.Equal(got, []string{"Bash", "Grep", "Read", "Skill"}) {
		t.Errorf("all but Write and the gh server, no Agent at the depth limit: %v", got)
	}
	r.Settings.MaxDepth = 2
	if got := names(&Def{Tools: []string{"Task", "Read"}}, 0); !slices.Equal(got, []string{"Agent", "Read"}) {
		t.Errorf("with depth 2 a child may nest (Task names Agent): %v", got)
	}
	small := tool.NewRegistry(namedTool("Read"))
	if got := r.childTools(Parent{Tools: small}, Parent{Tools: small, Depth: 1}, &Def{}).Names(); !slices.Equal(got, []string{"Read"}) {
		t.Errorf("a child never gets tools its parent lacks: %v", got)
	}
}

func TestDepthLimit(t *testing.T) {
	r := &Runner{}
	_, err := r.Run(context.Background(), Parent{Depth: 1}, Task{Agent: Builtins()[0]})
	if err == nil || !strings.Contains(err.Error(), "max_depth") {
		t.Errorf("a child starting a child: %v", err)
	}
}

func TestForwarder(t *testing.T) {
	var got []event.Event
	f := forwarder{parent: func(e event.Event) { got = append(got, e) }, toolUseID: "toolu_parent"}
	em := event.NewEmitter("ses_child", 0, f)
	for _, typ := range []event.Type{event.Status, event.Text, event.ToolUse, event.Result, event.Done} {
		em.Emit(event.Event{Type: typ})
	}
	em.Emit(event.Event{Type: event.Text, ParentToolUseID: "toolu_grandchild"})
	if len(got) != 3 {
		t.Fatalf("forwarded %v", got)
	}
	for i, want := range []string{"toolu_parent", "toolu_parent", "toolu_grandchild"} {
		if got[i].ParentToolUseID != want || got[i].SessionID != "" || got[i].Seq != 0 {
			t.Errorf("event %d: %+v", i, got[i])
		}
	}
}
