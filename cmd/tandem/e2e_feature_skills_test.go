package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// toolDescription returns the description a request gave a tool.
func toolDescription(r scripted.Request, name string) string {
	tools, _ := r.Body["tools"].([]any)
	for _, t := range tools {
		m, _ := t.(map[string]any)
		if m["name"] == name {
			d, _ := m["description"].(string)
			return d
		}
	}
	return ""
}

// requestText is every text and tool_result of a request's messages.
func requestText(r scripted.Request) string {
	var sb strings.Builder
	for _, m := range r.Messages() {
		_, blocks := anthropicBlocks(m)
		for _, b := range blocks {
			if s, ok := b["text"].(string); ok {
				sb.WriteString(s + "\n")
			}
			sb.WriteString(contentText(b["content"]) + "\n")
		}
	}
	return sb.String()
}

// childSessions opens the test's store and returns the sessions under
// parentID.
func (x *e2e) childSessions(parentID string) []store.Session {
	x.t.Helper()
	st, err := storeopen.Open(context.Background(), filepath.Join(x.Home, "tandem.db"), storeopen.Options{})
	if err != nil {
		x.t.Fatal(err)
	}
	defer st.Close()
	all, err := st.ListSessions(context.Background(), store.ListOptions{})
	if err != nil {
		x.t.Fatal(err)
	}
	var out []store.Session
	for _, s := range all {
		if s.ParentID == parentID {
			out = append(out, s)
		}
	}
	return out
}

func writeAt(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A project skill is listed for the model in the first request, its body
// reaches the next request through the Skill tool, its allowed-tools are
// pre-approved (never past a deny rule), and a user skill's own files are
// readable outside the workspace.
func TestFeatureSkillToolNative(t *testing.T) {
	t.Parallel()
	needProgram(t, "python3")
	// The script names a file under this world's home, so it is served
	// once the home exists.
	x := newE2E(t, scripted.Script{})
	refPath := filepath.Join(x.Home, ".claude", "skills", "style", "reference.md")
	x = withScript(t, x, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("sk1", "Skill", map[string]any{"skill": "make-note", "args": "Ana"})),
		scripted.ToolStep(
			scripted.CallID("py1", "Bash", map[string]any{"command": "python3 -c \"open('note.txt','w').write('hi')\""}),
			scripted.CallID("rm1", "Bash", map[string]any{"command": "rm -f keep.txt"}),
			scripted.CallID("ref1", "Read", map[string]any{"file_path": refPath}),
		),
		scripted.TextStep("Note written."),
	}})
	x.WriteFile(".claude/skills/make-note/SKILL.md", "---\nname: make-note\ndescription: Writes a note file for someone. Use when asked for a note.\nallowed-tools: Bash(python3 *), Bash(rm *)\n---\nNOTE-SKILL-BODY: write note.txt for $ARGUMENTS with python3.\n")
	x.WriteFile("keep.txt", "keep me\n")
	x.WriteFile(".claude/settings.json", `{"permissions":{"deny":["Bash(rm *)"]}}`)
	writeAt(t, filepath.Join(x.Home, ".claude", "skills", "style", "SKILL.md"), "---\nname: style\ndescription: House style guide.\n---\nSee reference.md.\n")
	writeAt(t, refPath, "STYLE-REFERENCE-CONTENT\n")

	// In an untrusted folder the skill runs, but its allowed-tools
	// pre-approve nothing: python3 is judged as usual (no terminal: denied),
	// and the run says once what it left out.
	untrusted := x.RunStream("write a note for Ana")
	mustSucceed(t, untrusted)
	if strings.Count(untrusted.Stderr, "make-note/SKILL.md: \"allowed-tools\"") != 1 {
		t.Fatalf("untrusted folder: want one notice naming the skill's allowed-tools:\n%s", untrusted.Stderr)
	}
	if res := toolResults(untrusted); !res["py1"].IsError || !strings.Contains(res["py1"].Output, "needs approval") {
		t.Fatalf("untrusted folder: the skill's allowed-tools approved python3: %+v", res["py1"])
	}
	skip := len(x.srv.MainRequests())
	r := x.RunStream("write a note for Ana", "--trust-project")
	mustSucceed(t, r)
	reqs := x.srv.MainRequests()[skip:]
	if len(reqs) < 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	desc := toolDescription(reqs[0], "Skill")
	if !strings.Contains(desc, "- make-note: Writes a note file for someone.") || !strings.Contains(desc, "- style: House style guide.") {
		t.Errorf("first request's Skill listing:\n%s", desc)
	}
	if strings.Contains(requestText(reqs[0]), "NOTE-SKILL-BODY") {
		t.Error("the skill body was sent before the model asked for it")
	}
	if txt := requestText(reqs[1]); !strings.Contains(txt, "NOTE-SKILL-BODY: write note.txt for Ana with python3.") {
		t.Errorf("second request lacks the skill body:\n%s", txt)
	}
	res := toolResults(r)
	if res["py1"].IsError || x.ReadFile("note.txt") != "hi" {
		t.Errorf("the skill's allowed tool was not pre-approved: %+v", res["py1"])
	}
	if !res["rm1"].IsError || x.ReadFile("keep.txt") == "" {
		t.Errorf("allowed-tools widened a deny rule: %+v", res["rm1"])
	}
	if res["ref1"].IsError || !strings.Contains(res["ref1"].Output, "STYLE-REFERENCE-CONTENT") {
		t.Errorf("a skill's own file was not readable: %+v", res["ref1"])
	}
	// The grant ends with the turn: the same command now needs approval.
	x.srv.Close()
	x = withScript(t, x, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("py2", "Bash", map[string]any{"command": "python3 -c \"open('note2.txt','w').write('hi')\""})),
		scripted.TextStep("ok"),
	}})
	r2 := x.RunStream("again, without the skill", "--trust-project")
	if res := toolResults(r2)["py2"]; !res.IsError {
		t.Errorf("the skill's pre-approval outlived its turn: %+v", res)
	}
}

// withScript serves a new script for the same workspace and home.
func withScript(t *testing.T, old *e2e, script scripted.Script) *e2e {
	t.Helper()
	srv, url := testfiles.Scripted(t, script)
	x := *old
	x.srv, x.url = srv, url
	return &x
}

// A `context: fork` skill runs as a sub-agent: its body is the child's
// prompt, the child's answer is the Skill call's result, and the child is
// stored under the session.
func TestFeatureForkSkillNative(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("fork1", "Skill", map[string]any{"skill": "audit"})),
			scripted.TextStep("The audit says: all clear."),
		},
		Threads: []scripted.Thread{{Match: "FORK-AUDIT-BODY", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("c1", "Glob", map[string]any{"pattern": "*.go"})),
			scripted.TextStep("all clear"),
		}}},
	})
	x.WriteFile("main.go", "package main\n")
	x.WriteFile(".claude/skills/audit/SKILL.md", "---\nname: audit\ndescription: Audits the code in a fresh context.\ncontext: fork\nagent: Explore\n---\nFORK-AUDIT-BODY: list the Go files and report.\n")
	r := x.RunStream("audit the code")
	mustSucceed(t, r)
	res := toolResults(r)["fork1"]
	if res.IsError || res.Output != "all clear" || res.Meta["agent_type"] != "Explore" {
		t.Fatalf("fork skill result: %+v", res)
	}
	var nested bool
	for _, e := range r.Events {
		if e.Type == event.ToolResult && e.ToolUseID == "c1" && e.ParentToolUseID == "fork1" && strings.Contains(e.Output, "main.go") {
			nested = true
		}
	}
	if !nested {
		t.Errorf("the child's Glob result was not forwarded with parent_tool_use_id: %v", r.Types())
	}
	if kids := x.childSessions(r.Result().SessionID); len(kids) != 1 || kids[0].MessageCount != 4 || kids[0].ParentToolUseID != "fork1" {
		t.Errorf("child sessions (want one, linked to the fork1 call): %+v", kids)
	}
}

// Two Agent calls in one message run in parallel; a custom agent limited
// to Read and Grep is offered exactly those; every child event reaches
// stream-json with parent_tool_use_id; children are stored with their
// usage, which the parent's result includes.
func TestFeatureSubagentsNative(t *testing.T) {
	t.Parallel()
	slow := scripted.Fault{FirstByteDelayMS: 2500}
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(
				scripted.CallID("a1", "Agent", map[string]any{"description": "read the notes", "prompt": "TASK-ONE: read notes.txt", "subagent_type": "reader"}),
				scripted.CallID("a2", "Task", map[string]any{"description": "count", "prompt": "TASK-TWO: say two"}),
			).WithUsage(scripted.Usage{InputTokens: 100, OutputTokens: 10}),
			scripted.TextStep("Both done.").WithUsage(scripted.Usage{InputTokens: 200, OutputTokens: 20}),
		},
		Threads: []scripted.Thread{
			{Match: "TASK-ONE", Steps: []scripted.Step{
				scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": "notes.txt"})).WithFault(slow).WithUsage(scripted.Usage{InputTokens: 1000, OutputTokens: 100}),
				scripted.TextStep("notes say hello").WithUsage(scripted.Usage{InputTokens: 2000, OutputTokens: 200}),
			}},
			{Match: "TASK-TWO", Steps: []scripted.Step{
				scripted.TextStep("two").WithFault(slow).WithUsage(scripted.Usage{InputTokens: 10000, OutputTokens: 1000}),
			}},
		},
	})
	x.WriteFile("notes.txt", "hello\n")
	x.WriteFile(".claude/agents/reader.md", "---\nname: reader\ndescription: Reads files and reports.\ntools: Read, Grep\n---\nYou read files.\n")
	r := x.RunStream("use two agents")
	mustSucceed(t, r)

	res := toolResults(r)
	if res["a1"].Output != "notes say hello" || res["a2"].Output != "two" || res["a1"].IsError || res["a2"].IsError {
		t.Fatalf("agent results: %+v / %+v", res["a1"], res["a2"])
	}
	var one, two []scripted.Request
	for _, q := range x.srv.MainRequests() {
		switch first := contentText(q.Messages()[0].(map[string]any)["content"]); {
		case strings.Contains(first, "TASK-ONE"):
			one = append(one, q)
		case strings.Contains(first, "TASK-TWO"):
			two = append(two, q)
		}
	}
	if len(one) != 2 || len(two) != 1 {
		t.Fatalf("child requests: %d and %d", len(one), len(two))
	}
	if got := reqTools(one[0]); !slices.Equal(got, []string{"Grep", "Read"}) {
		t.Errorf("the Read+Grep agent was offered %v", got)
	}
	if got := reqTools(two[0]); slices.Contains(got, "Agent") || !slices.Contains(got, "Write") {
		t.Errorf("a general-purpose child was offered %v (no Agent: depth limit; else the parent's tools)", got)
	}
	// Both children's first requests were in flight together: each was
	// held 2.5 s, so one after the other they would start >= 2.5 s apart.
	if d := one[0].Time.Sub(two[0].Time); d > 2*time.Second || d < -2*time.Second {
		t.Errorf("the two agents did not run in parallel: their first requests were %v apart", d)
	}
	var nested []string
	for _, e := range r.Events {
		if e.ParentToolUseID != "" {
			nested = append(nested, e.ParentToolUseID+":"+string(e.Type)+":"+e.ToolUseID)
			if e.SessionID != r.Result().SessionID {
				t.Errorf("a forwarded event carries session %s", e.SessionID)
			}
		}
		if e.ParentToolUseID != "" && (e.Type == event.Result || e.Type == event.Done || e.Type == event.Status) {
			t.Errorf("a child's %s was forwarded", e.Type)
		}
	}
	for _, want := range []string{"a1:tool_use:r1", "a1:tool_result:r1", "a1:text:", "a2:text:"} {
		if !slices.Contains(nested, want) {
			t.Errorf("nested events lack %s: %v", want, nested)
		}
	}
	kids := x.childSessions(r.Result().SessionID)
	if len(kids) != 2 {
		t.Fatalf("child sessions: %+v", kids)
	}
	if calls := []string{kids[0].ParentToolUseID, kids[1].ParentToolUseID}; !slices.Contains(calls, "a1") || !slices.Contains(calls, "a2") {
		t.Errorf("child sessions linked to calls %v, want a1 and a2", calls)
	}
	var kidOut int64
	for _, k := range kids {
		kidOut += k.Usage.OutputTokens
	}
	if kidOut != 1300 {
		t.Errorf("children's stored output tokens = %d, want 1300", kidOut)
	}
	if u := r.Result().Usage; u == nil || u.OutputTokens != 1330 || u.InputTokens != 13300 {
		t.Errorf("parent result usage %+v, want the children's rolled in (1330 out, 13300 in)", u)
	}
}

// An explore-mode parent's child is read-only too.
func TestFeatureExploreChildCannotWriteNative(t *testing.T) {
	t.Parallel()
	x := newE2E(t, delegateScript("write", "WRITE-TASK: create out.txt", "WRITE-TASK", "The agent could not write.",
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "out.txt", "content": "x"}),
			scripted.CallID("b1", "Bash", map[string]any{"command": "touch out2.txt"})),
		scripted.TextStep("denied"),
	))
	r := x.RunStream("try to write", "--permission-mode", "explore")
	mustSucceed(t, r)
	for _, id := range []string{"w1", "b1"} {
		if res := toolResults(r)[id]; !res.IsError || res.ParentToolUseID != "a1" {
			t.Errorf("%s in an explore child: %+v", id, res)
		}
	}
	if x.ReadFile("out.txt") != "" || x.ReadFile("out2.txt") != "" {
		t.Error("an explore child wrote a file")
	}
}

// A failing child returns an error result; the parent's turn goes on.
func TestFeatureFailingSubagentNative(t *testing.T) {
	t.Parallel()
	x := newE2E(t, delegateScript("doomed", "DOOMED-TASK", "DOOMED-TASK", "The agent failed; carrying on.",
		scripted.TextStep("never").WithFault(scripted.Fault{Status: 400, Always: true}),
	))
	r := x.RunStream("delegate")
	mustSucceed(t, r)
	res := toolResults(r)["a1"]
	if !res.IsError || !strings.Contains(res.Output, "did not finish") || res.Meta["subtype"] != event.SubtypeProviderError {
		t.Errorf("failed child's result: %+v", res)
	}
	if r.Result().Result != "The agent failed; carrying on." {
		t.Errorf("the parent did not go on: %+v", r.Result())
	}
}

// Interrupting the turn stops the children: a child running a long
// command is killed and the run ends as interrupted, quickly.
func TestFeatureInterruptStopsSubagentsNative(t *testing.T) {
	t.Parallel()
	marker := sleepMarker()
	x := newE2E(t, scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(
				scripted.CallID("a1", "Agent", map[string]any{"description": "sleep", "prompt": "SLEEP-TASK"}),
				scripted.CallID("a2", "Agent", map[string]any{"description": "slow", "prompt": "SLOW-TASK"}),
			),
			scripted.TextStep("never"),
		},
		Threads: []scripted.Thread{
			{Match: "SLEEP-TASK", Steps: []scripted.Step{scripted.ToolStep(scripted.CallID("s1", "Bash", map[string]any{"command": "sleep " + marker}))}},
			{Match: "SLOW-TASK", Steps: []scripted.Step{scripted.TextStep("late").WithFault(scripted.Fault{FirstByteDelayMS: 30000})}},
		},
	})
	p := x.Start("run", "-p", "delegate", "--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "trust")
	sleepStarted(t, marker)
	start := time.Now()
	p.Signal(syscall.SIGINT)
	r := p.Wait(10 * time.Second)
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	if res := r.Result(); res.Subtype != event.SubtypeInterrupted {
		t.Fatalf("result %+v\nstderr:\n%s", res, r.Stderr)
	}
	sleepGone(t, marker)
	for _, id := range []string{"a1", "a2"} {
		if res := toolResults(r)[id]; !res.IsError {
			t.Errorf("%s after the interrupt: %+v", id, res)
		}
	}
}
