package claudecode

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func requestTools(r scripted.Request) []string {
	var out []string
	tools, _ := r.Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if n, ok := m["name"].(string); ok {
			out = append(out, n)
		}
	}
	return out
}

// The CLI reads the project's .claude/skills itself; with tandem's default
// tool list it offers the Skill tool, lists the skill in the first request
// and sends its body in the next, with every call judged by tandem.
func TestRealCLISkillTool(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeTree(t, h.work, map[string]string{
		".claude/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets people in the house style. Use when asked to greet.\n---\nGREET-SKILL-BODY: say hello warmly.\n",
	})
	h.start(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("sk1", "Skill", map[string]any{"skill": "greet"})),
		scripted.TextStep("Hello, warmly."),
	}})
	checker := &recordingChecker{}
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("greet me"), checker)
	if res.IsError {
		t.Fatalf("result %+v\nevents: %s", res, types(h.events.All()))
	}
	reqs := h.srv.MainRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d main requests", len(reqs))
	}
	if !slices.Contains(requestTools(reqs[0]), "Skill") {
		t.Errorf("first request's tools %v lack Skill", requestTools(reqs[0]))
	}
	if body := string(reqs[0].RawBody); !strings.Contains(body, "Greets people in the house style") || strings.Contains(body, "GREET-SKILL-BODY") {
		t.Errorf("first request should list the skill, not its body")
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, "GREET-SKILL-BODY") {
		t.Errorf("second request lacks the skill body")
	}
	if !slices.Contains(checker.tools(), "Skill") {
		t.Errorf("tandem's checker was not asked about the Skill call: %v", checker.tools())
	}
}

// A config-defined agent reaches the CLI in initialize; its child is
// offered only Read and Grep, two Agent calls run, the child's frames come
// back as events with parent_tool_use_id and are stored as child sessions.
func TestRealCLISubagents(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	notes := h.writeFile("notes.txt", "hello from notes\n")
	h.opts.Agents = map[string]any{"reader": map[string]any{
		"description": "Reads files and reports.", "prompt": "You read files.", "tools": []string{"Read", "Grep"}}}
	none := ""
	h.start(scripted.Script{
		SideModelPattern: &none,
		Steps: []scripted.Step{
			scripted.ToolStep(
				scripted.CallID("a1", "Agent", map[string]any{"description": "read notes", "prompt": "TASK-ONE: read " + notes, "subagent_type": "reader"}),
				scripted.CallID("a2", "Agent", map[string]any{"description": "say two", "prompt": "TASK-TWO: say two", "subagent_type": "general-purpose"}),
			),
			scripted.TextStep("Both done."),
		},
		Threads: []scripted.Thread{
			{Match: "TASK-ONE", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": notes})),
				scripted.TextStep("notes say hello"),
			}},
			{Match: "TASK-TWO", Steps: []scripted.Step{scripted.TextStep("two")}},
		},
	})
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("use two agents"), &recordingChecker{})
	if res.IsError {
		t.Fatalf("result %+v\nevents: %s", res, types(h.events.All()))
	}
	var one []scripted.Request
	for _, q := range h.srv.MainRequests() {
		if strings.Contains(string(q.RawBody), "TASK-ONE: read") && !strings.Contains(string(q.RawBody), "use two agents") {
			one = append(one, q)
		}
	}
	if len(one) == 0 {
		t.Fatal("the reader agent made no request")
	}
	if got := requestTools(one[0]); !slices.Contains(got, "Read") || slices.ContainsFunc(got, func(n string) bool { return n != "Read" && n != "Grep" }) {
		t.Errorf("the Read+Grep agent was offered %v", got)
	}
	var nested []string
	for _, e := range h.events.All() {
		if e.ParentToolUseID != "" {
			nested = append(nested, e.ParentToolUseID+":"+string(e.Type)+":"+e.ToolUseID)
		}
	}
	for _, want := range []string{"a1:tool_use:r1", "a1:tool_result:r1"} {
		if !slices.Contains(nested, want) {
			t.Errorf("nested events lack %s: %v", want, nested)
		}
	}
	results := map[string]event.Event{}
	for _, e := range h.events.All() {
		if e.Type == event.ToolResult {
			results[e.ToolUseID] = e
		}
	}
	if !strings.Contains(results["a1"].Output, "notes say hello") || !strings.Contains(results["a2"].Output, "two") {
		t.Errorf("agent results: %q / %q", results["a1"].Output, results["a2"].Output)
	}
	kids := h.rec.Children()
	if len(kids) == 0 {
		t.Fatal("no child session stored")
	}
	var titles []string
	for _, k := range kids {
		titles = append(titles, k.Title)
		// The child names the Agent call it ran for, so stored history can
		// nest it as the live events did.
		if want := map[string]string{"reader: read notes": "a1"}[k.Title]; want != "" && k.ParentToolUseID != want {
			t.Errorf("child %q linked to tool call %q, want %q", k.Title, k.ParentToolUseID, want)
		}
		if k.ParentToolUseID != "a1" && k.ParentToolUseID != "a2" {
			t.Errorf("child %q linked to tool call %q, not one of the Agent calls", k.Title, k.ParentToolUseID)
		}
		if len(k.Messages()) == 0 {
			t.Errorf("child %q stored no messages", k.Title)
		}
	}
	if !slices.Contains(titles, "reader: read notes") {
		t.Errorf("child titles %v", titles)
	}
	var mainOut, kidOut int64
	for _, m := range h.rec.Messages() {
		if m.Usage != nil {
			mainOut += m.Usage.OutputTokens
		}
	}
	for _, k := range kids {
		for _, m := range k.Messages() {
			if m.Usage != nil {
				kidOut += m.Usage.OutputTokens
			}
		}
	}
	t.Logf("result usage %+v; main messages out %d, children out %d", res.Usage, mainOut, kidOut)
	if res.Usage == nil || kidOut == 0 || res.Usage.OutputTokens <= mainOut {
		t.Errorf("the result's usage %+v does not include the children's (%d main + %d children output tokens)", res.Usage, mainOut, kidOut)
	}
}

// A `context: fork` skill runs in a sub-agent under the CLI too: its body
// is the child's prompt and the child's answer reaches the main thread.
func TestRealCLIForkSkill(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeTree(t, h.work, map[string]string{
		".claude/skills/audit/SKILL.md": "---\nname: audit\ndescription: Audits the code in a fresh context.\ncontext: fork\n---\nFORK-AUDIT-BODY: report all clear.\n",
	})
	none := ""
	h.start(scripted.Script{
		SideModelPattern: &none,
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("sk1", "Skill", map[string]any{"skill": "audit"})),
			scripted.TextStep("The audit says all clear."),
		},
		Threads: []scripted.Thread{{Match: "FORK-AUDIT-BODY", Steps: []scripted.Step{scripted.TextStep("FORKED-ANSWER all clear")}}},
	})
	res := h.run(context.Background(), New(h.cfg, h.opts), h.input("audit"), &recordingChecker{})
	if res.IsError {
		t.Fatalf("result %+v\nevents: %s", res, types(h.events.All()))
	}
	var forked, reported bool
	for _, q := range h.srv.MainRequests() {
		body := string(q.RawBody)
		if strings.Contains(body, "FORK-AUDIT-BODY") && !strings.Contains(body, "FORKED-ANSWER") && !strings.Contains(body, "\"audit\"") {
			forked = true
		}
		if strings.Contains(body, "FORKED-ANSWER") && strings.Contains(body, "sk1") {
			reported = true
		}
	}
	if !forked || !reported {
		t.Errorf("fork skill: ran in a child %v, answer reached the main thread %v", forked, reported)
	}
}
