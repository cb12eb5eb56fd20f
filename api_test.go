package tandem_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tandem-agent/tandem"
	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestRunStreamsEventsInOrder(t *testing.T) {
	st := newStack(t, scripted.TextStep("Hello from the model."))
	eng := st.open(tandem.Options{})
	var all, turn recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: all.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(testCtx(t), "say hello", &tandem.RunOptions{OnEvent: turn.add})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Subtype != tandem.SubtypeSuccess || res.Text != "Hello from the model." || res.SessionID != s.ID() {
		t.Fatalf("result: %+v", res)
	}
	if res.Usage.OutputTokens == 0 || res.NumTurns != 1 {
		t.Errorf("result usage/turns: %+v", res)
	}
	evs := turn.all()
	if len(evs) == 0 || evs[0].Type != tandem.EventStatus || evs[len(evs)-1].Type != tandem.EventDone {
		t.Fatalf("turn events do not start with status and end with done: %v", types(evs))
	}
	var text strings.Builder
	for i, e := range evs {
		if e.SessionID != s.ID() {
			t.Errorf("event %d has session %q, want %q", i, e.SessionID, s.ID())
		}
		if i > 0 && e.Seq != evs[i-1].Seq+1 {
			t.Errorf("event %d has seq %d after %d", i, e.Seq, evs[i-1].Seq)
		}
		if e.Type == tandem.EventText {
			text.WriteString(e.Text)
		}
	}
	if text.String() != "Hello from the model." {
		t.Errorf("text deltas add up to %q", text.String())
	}
	if got := turn.ofType(tandem.EventResult); len(got) != 1 || got[0].Result != res.Text {
		t.Errorf("result events: %+v", got)
	}
	// The session's callback saw the turn too (and possibly events from
	// opening, before it).
	if sa := all.all(); len(sa) < len(evs) || sa[len(sa)-1].Seq != evs[len(evs)-1].Seq {
		t.Errorf("session callback saw %d events, the turn's %d", len(sa), len(evs))
	}
	if dir := s.Dir(); dir != st.Work {
		t.Errorf("Dir() = %q, want %q", dir, st.Work)
	}
}

func types(evs []tandem.Event) []tandem.EventType {
	out := make([]tandem.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// deploySteps call the custom tool deploy (not read-only, so it asks in
// normal mode), then answer.
func deploySteps(calls int) []scripted.Step {
	var steps []scripted.Step
	for i := 0; i < calls; i++ {
		steps = append(steps, scripted.ToolStep(scripted.CallID(fmt.Sprintf("d%d", i+1), "deploy", map[string]any{"target": "staging"})))
	}
	return append(steps, scripted.TextStep("done"))
}

// deployTool counts its runs.
func deployTool(runs *atomic.Int32) tandem.Tool {
	return tandem.Tool{Name: "deploy", Description: "Deploy the build.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"target":{"type":"string"}},"required":["target"]}`),
		Run: func(ctx context.Context, call tandem.ToolCall) (tandem.ToolResult, error) {
			runs.Add(1)
			return tandem.ToolResult{Content: "deployed"}, nil
		}}
}

func TestPermissionAnsweredInCode(t *testing.T) {
	t.Run("allow once", func(t *testing.T) {
		st := newStack(t, deploySteps(1)...)
		var asked, runs atomic.Int32
		eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)},
			Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
				asked.Add(1)
				if req.ToolName != "deploy" || req.ToolUseID != "d1" || req.ID == "" || !strings.Contains(string(req.Input), "staging") {
					t.Errorf("request: %+v", req)
				}
				return tandem.PermissionDecision{Behavior: tandem.AllowOnce}
			}})
		var rec recorder
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: rec.add})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Run(testCtx(t), "deploy it", nil)
		if err != nil || res.IsError {
			t.Fatalf("run: %+v, %v", res, err)
		}
		if asked.Load() != 1 || runs.Load() != 1 {
			t.Errorf("asked %d times and ran %d, want 1 and 1", asked.Load(), runs.Load())
		}
		reqs, replies := rec.ofType(tandem.EventPermissionRequest), rec.ofType(tandem.EventPermissionReply)
		if len(reqs) != 1 || len(replies) != 1 || replies[0].Decision != "allow_once" || replies[0].RequestID != reqs[0].RequestID {
			t.Errorf("permission events: %+v / %+v", reqs, replies)
		}
	})
	t.Run("allow always asks once", func(t *testing.T) {
		st := newStack(t, deploySteps(2)...)
		var asked, runs atomic.Int32
		eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)},
			Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
				asked.Add(1)
				if !req.AlwaysOffered() {
					t.Errorf("allow always is not offered: %+v", req)
				}
				return tandem.PermissionDecision{Behavior: tandem.AllowAlways}
			}})
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if res, err := s.Run(testCtx(t), "deploy twice", nil); err != nil || res.IsError {
			t.Fatalf("run: %+v, %v", res, err)
		}
		if asked.Load() != 1 || runs.Load() != 2 {
			t.Errorf("asked %d times and ran %d, want 1 and 2", asked.Load(), runs.Load())
		}
	})
	t.Run("deny with a message", func(t *testing.T) {
		st := newStack(t, deploySteps(1)...)
		var runs atomic.Int32
		eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)}})
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work,
			Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
				return tandem.PermissionDecision{Behavior: tandem.Deny, Message: "no deploys on Fridays"}
			}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Run(testCtx(t), "deploy it", nil)
		if err != nil {
			t.Fatal(err)
		}
		if runs.Load() != 0 {
			t.Error("deploy ran despite the denial")
		}
		if len(res.PermissionDenials) != 1 || res.PermissionDenials[0].ToolName != "deploy" {
			t.Errorf("denials: %+v", res.PermissionDenials)
		}
		if !st.requestHas(1, "no deploys on Fridays") {
			t.Error("the denial's message did not reach the model")
		}
	})
	t.Run("an invalid decision denies", func(t *testing.T) {
		st := newStack(t, deploySteps(1)...)
		var runs atomic.Int32
		eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)},
			Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
				return tandem.PermissionDecision{Behavior: "maybe"}
			}})
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Run(testCtx(t), "deploy it", nil); err != nil {
			t.Fatal(err)
		}
		if runs.Load() != 0 {
			t.Error("deploy ran on an invalid decision")
		}
		if !st.requestHas(1, "invalid decision") {
			t.Error("the model was not told the decision was invalid")
		}
	})
	t.Run("no callback denies with an explanation", func(t *testing.T) {
		st := newStack(t, deploySteps(1)...)
		var runs atomic.Int32
		eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)}})
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Run(testCtx(t), "deploy it", nil); err != nil {
			t.Fatal(err)
		}
		if runs.Load() != 0 {
			t.Error("deploy ran with nobody to ask")
		}
		if !st.requestHas(1, "answers no permission questions") {
			t.Error("the model was not told why")
		}
	})
	t.Run("dontAsk denies without asking", func(t *testing.T) {
		st := newStack(t, deploySteps(1)...)
		var runs atomic.Int32
		eng := st.open(tandem.Options{PermissionMode: tandem.ModeDontAsk, Tools: []tandem.Tool{deployTool(&runs)},
			Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
				t.Errorf("asked in dontAsk mode: %+v", req)
				return tandem.PermissionDecision{Behavior: tandem.AllowOnce}
			}})
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		res, err := s.Run(testCtx(t), "deploy it", nil)
		if err != nil {
			t.Fatal(err)
		}
		if runs.Load() != 0 || len(res.PermissionDenials) != 1 {
			t.Errorf("deploy ran %d times, denials %+v", runs.Load(), res.PermissionDenials)
		}
	})
	t.Run("a rule allows without asking", func(t *testing.T) {
		st := newStack(t, deploySteps(1)...)
		var runs atomic.Int32
		eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)}, AllowedTools: []string{"deploy"},
			Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
				t.Errorf("asked despite the allow rule: %+v", req)
				return tandem.PermissionDecision{Behavior: tandem.Deny}
			}})
		s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.Run(testCtx(t), "deploy it", nil); err != nil {
			t.Fatal(err)
		}
		if runs.Load() != 1 {
			t.Errorf("deploy ran %d times, want 1", runs.Load())
		}
	})
}

type lookupIn struct {
	Key string `json:"key" jsonschema:"the key to look up"`
}

func TestCustomToolCalledByModel(t *testing.T) {
	st := newStack(t,
		scripted.ToolStep(scripted.CallID("l1", "lookup", map[string]any{"key": "colour"})),
		scripted.TextStep("The colour is teal."))
	var got atomic.Value
	lookup, err := tandem.NewTool("lookup", "Look a key up in the program's table.",
		func(ctx context.Context, call tandem.ToolCall, in lookupIn) (tandem.ToolResult, error) {
			got.Store(call)
			if in.Key != "colour" {
				return tandem.ToolResult{}, errors.New("unknown key " + in.Key)
			}
			return tandem.ToolResult{Content: "colour = teal"}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	lookup.ReadOnly = true
	eng := st.open(tandem.Options{Tools: []tandem.Tool{lookup}})
	var rec recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(testCtx(t), "what colour?", nil)
	if err != nil || res.Text != "The colour is teal." {
		t.Fatalf("run: %+v, %v", res, err)
	}
	call, _ := got.Load().(tandem.ToolCall)
	if call.ID != "l1" || call.SessionID != s.ID() || call.WorkDir != st.Work {
		t.Errorf("call: %+v", call)
	}
	if !st.requestHas(0, `"lookup"`) || !st.requestHas(0, "the key to look up") {
		t.Error("the first request did not offer lookup with its derived schema")
	}
	if !st.requestHas(1, "colour = teal") {
		t.Error("the tool's result did not reach the model")
	}
	if rs := rec.ofType(tandem.EventToolResult); len(rs) != 1 || rs[0].Output != "colour = teal" || rs[0].IsError {
		t.Errorf("tool_result events: %+v", rs)
	}
	if len(rec.ofType(tandem.EventPermissionRequest)) != 0 {
		t.Error("a read-only custom tool asked for permission")
	}
}

func TestCustomToolErrorGoesToModel(t *testing.T) {
	st := newStack(t,
		scripted.ToolStep(scripted.CallID("l1", "lookup", map[string]any{"key": 7})),
		scripted.TextStep("ok"))
	lookup, err := tandem.NewTool("lookup", "Look a key up.",
		func(ctx context.Context, call tandem.ToolCall, in lookupIn) (tandem.ToolResult, error) {
			t.Error("Run was called with input that does not decode")
			return tandem.ToolResult{}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	lookup.ReadOnly = true
	eng := st.open(tandem.Options{Tools: []tandem.Tool{lookup}})
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(testCtx(t), "go", nil); err != nil {
		t.Fatal(err)
	}
	if !st.requestHas(1, `field \"key\" must be a string`) {
		t.Errorf("the decoding error did not reach the model: %s", st.srv.MainRequests()[1].RawBody)
	}
}

func TestBadOptionsAreRefused(t *testing.T) {
	st := newStack(t)
	run := func(ctx context.Context, c tandem.ToolCall) (tandem.ToolResult, error) {
		return tandem.ToolResult{}, nil
	}
	for name, opts := range map[string]tandem.Options{
		"bad tool name":   {Tools: []tandem.Tool{{Name: "has space", Run: run}}},
		"no Run":          {Tools: []tandem.Tool{{Name: "x"}}},
		"same name twice": {Tools: []tandem.Tool{{Name: "x", Run: run}, {Name: "x", Run: run}}},
		"bad schema":      {Tools: []tandem.Tool{{Name: "x", Run: run, InputSchema: json.RawMessage(`[1]`)}}},
		"bad mode":        {PermissionMode: "yolo"},
		"MCP without cmd": {MCPServers: []tandem.MCPServer{{Name: "x"}}},
		"bad rule":        {AllowedTools: []string{"Bash("}},
	} {
		opts.Home = st.Home
		opts.Getenv = func(k string) string { return st.env[k] }
		if eng, err := tandem.Open(context.Background(), opts); err == nil {
			eng.Close()
			t.Errorf("%s: Open succeeded", name)
		}
	}
	eng := st.open(tandem.Options{})
	if _, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, Tools: []tandem.Tool{{Name: "Read", Run: run}}}); err == nil ||
		!strings.Contains(err.Error(), "built-in") {
		t.Errorf("a custom tool named Read: %v", err)
	}
	if _, err := eng.ResumeSession(testCtx(t), "no-such-session", tandem.SessionOptions{}); err == nil {
		t.Error("resuming an unknown session succeeded")
	}
}

func TestSetPermissionModeAndModel(t *testing.T) {
	st := newStack(t, deploySteps(1)...)
	var runs atomic.Int32
	eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)}})
	var rec recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.SetPermissionMode(testCtx(t), tandem.ModeTrust); err != nil {
		t.Fatal(err)
	}
	if mc := rec.ofType(tandem.EventModeChanged); len(mc) != 1 || mc[0].Mode != "trust" || mc[0].PreviousMode != "normal" {
		t.Errorf("mode_changed events: %+v", mc)
	}
	if _, err := s.Run(testCtx(t), "deploy it", nil); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 {
		t.Errorf("deploy ran %d times in trust mode, want 1 without asking", runs.Load())
	}
	if err := s.SetPermissionMode(testCtx(t), "sideways"); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if err := s.SetModel(testCtx(t), "nosuchprovider/x"); err == nil {
		t.Error("a model of an unknown provider was accepted")
	}
	if err := s.SetModel(testCtx(t), "anthropic/claude-opus-5-5"); err != nil {
		t.Error(err)
	}
}

// A sub-agent's question reaches the callback of the session it runs
// under, though it asks under its own child session id.
func TestSubagentPermissionReachesTheSessionsCallback(t *testing.T) {
	srv := scripted.New(scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "deploy", "prompt": "CHILD-TASK: deploy it", "subagent_type": "general-purpose"})),
			scripted.TextStep("The sub-agent is done."),
		},
		Threads: []scripted.Thread{{Match: "CHILD-TASK", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("d1", "deploy", map[string]any{"target": "staging"})),
			scripted.TextStep("deployed"),
		}}},
	})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	st := newStack(t)
	st.env["ANTHROPIC_BASE_URL"] = url
	var runs atomic.Int32
	eng := st.open(tandem.Options{PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)}})
	var asked atomic.Value
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work,
		Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
			asked.Store(req)
			return tandem.PermissionDecision{Behavior: tandem.AllowOnce}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(testCtx(t), "delegate the deploy", nil)
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	req, ok := asked.Load().(tandem.PermissionRequest)
	if !ok || req.ToolName != "deploy" {
		t.Fatalf("the session's callback was not asked: %+v", req)
	}
	if req.SessionID == s.ID() || req.SessionID == "" {
		t.Errorf("the question came under %q, not the child's id: the test no longer tests routing", req.SessionID)
	}
	if runs.Load() != 1 {
		t.Errorf("deploy ran %d times, want 1", runs.Load())
	}
}

func TestCustomToolsNeedTheNativeRuntime(t *testing.T) {
	st := newStack(t)
	var runs atomic.Int32
	eng := st.open(tandem.Options{Tools: []tandem.Tool{deployTool(&runs)}})
	_, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, Runtime: tandem.RuntimeClaudeCode})
	if err == nil || !strings.Contains(err.Error(), "RuntimeNative") {
		t.Fatalf("custom tools on the claude-code runtime: %v", err)
	}
	if got, err := eng.Sessions(testCtx(t), tandem.ListOptions{}); err != nil || len(got) != 0 {
		t.Errorf("the refused session was stored: %+v, %v", got, err)
	}
	// A session stored with the claude-code runtime is refused on resume.
	plain := st.open(tandem.Options{})
	cc, err := plain.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, Runtime: tandem.RuntimeClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	cc.Close()
	if _, err := eng.ResumeSession(testCtx(t), cc.ID(), tandem.SessionOptions{}); err == nil || !strings.Contains(err.Error(), "RuntimeNative") {
		t.Errorf("resuming a claude-code session with custom tools: %v", err)
	}
	s, err := eng.ResumeSession(testCtx(t), cc.ID(), tandem.SessionOptions{Runtime: tandem.RuntimeNative})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestConfigFileGivenByTheProgram(t *testing.T) {
	st := newStack(t, deploySteps(1)...)
	cfg := filepath.Join(t.TempDir(), "program.json")
	if err := os.WriteFile(cfg, []byte(`{"model": "anthropic/claude-sonnet-5-5", "permissions": {"allow": ["deploy"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	eng := st.open(tandem.Options{ConfigFile: cfg, PermissionMode: tandem.ModeNormal, Tools: []tandem.Tool{deployTool(&runs)}})
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(testCtx(t), "deploy it", nil); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 {
		t.Errorf("deploy ran %d times, want 1: the config file's allow rule did not apply", runs.Load())
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"modle": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = tandem.Open(context.Background(), tandem.Options{Home: st.Home, ConfigFile: bad, Getenv: func(k string) string { return st.env[k] }})
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "modle") {
		t.Errorf("a bad config file: %v", err)
	}
}

func TestUntrustedProjectFileIsLeftOut(t *testing.T) {
	st := newStack(t, scripted.TextStep("ok"))
	if err := os.MkdirAll(filepath.Join(st.Work, ".tandem"), 0o755); err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(st.Work, ".tandem", "config.json")
	if err := os.WriteFile(project, []byte(`{"providers": {"anthropic": {"base_url": "https://elsewhere.example"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Untrusted: the session opens and runs without the base_url, and says
	// so in a status event.
	var notices []tandem.Event
	eng := st.open(tandem.Options{})
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: func(e tandem.Event) {
		if e.Type == "status" && e.Meta["notice"] == "untrusted" {
			notices = append(notices, e)
		}
	}})
	if err != nil {
		t.Fatalf("an untrusted folder's session: %v", err)
	}
	res, err := s.Run(testCtx(t), "hi", nil)
	if err != nil || res.Text != "ok" {
		t.Fatalf("run in an untrusted folder: %+v %v", res, err)
	}
	s.Close()
	if len(notices) != 1 || !strings.Contains(fmt.Sprint(notices[0].Meta), "base_url") {
		t.Errorf("want one untrusted notice naming base_url, got %+v", notices)
	}
	// RequireTrust: refused, naming the key and the fix, nothing stored.
	strict := st.open(tandem.Options{RequireTrust: true})
	before, _ := strict.Sessions(testCtx(t), tandem.ListOptions{})
	_, err = strict.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
	if err == nil || !strings.Contains(err.Error(), "base_url") || !strings.Contains(err.Error(), "tandem trust") {
		t.Fatalf("RequireTrust in an untrusted folder: %v", err)
	}
	if got, _ := strict.Sessions(testCtx(t), tandem.ListOptions{}); len(got) != len(before) {
		t.Errorf("the refused session was stored: %+v", got)
	}
	trusting := st.open(tandem.Options{TrustProjects: true, RequireTrust: true})
	s, err = trusting.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
	if err != nil {
		t.Fatalf("with TrustProjects: %v", err)
	}
	s.Close()
}
