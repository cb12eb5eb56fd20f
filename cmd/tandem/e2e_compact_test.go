package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

const e2eSummary = "E2E-SUMMARY: read the files, nothing changed."

// readScript reads n workspace files of 36 KB each (the session that used
// to die with "prompt is too long"), then answers.
func readScript(x *e2e, n int) []scripted.Step {
	var steps []scripted.Step
	line := "// a line of source code that fills the file up\n"
	for i := range n {
		name := fmt.Sprintf("src/file%02d.go", i)
		x.WriteFile(name, fmt.Sprintf("package src // file%02d\n", i)+strings.Repeat(line, 36*1024/len(line)))
		steps = append(steps, scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": filepath.Join(x.Work, name)})))
	}
	return append(steps, scripted.TextStep("all files read"))
}

// 26 reads of 36 KB under a 200k window (the user's config gives the
// default model that window, as the scripted server has), with pruning off
// so compaction has to do the work: the turn completes, no request passes
// the window, the boundary shows in sessions show, export keeps every
// original message, and --resume continues from the summary.
func TestE2ECompactionLongSessionAndResume(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	steps := readScript(x, 26)
	steps = append(steps, scripted.TextStep("resumed fine"))
	x.restart(t, scripted.Script{Steps: steps, StepMarkers: true, ContextLimit: 200_000, Fallback: &scripted.Step{Text: e2eSummary}})
	x.WriteConfig(`{"compaction": {"prune": false}, "providers": {"anthropic": {"models": {"claude-sonnet-5-5": {"context_window": 200000}}}}}`)

	res := x.RunStream("read every file under src", "--permission-mode", "trust", "--model", "anthropic/claude-sonnet-5-5")
	mustSucceed(t, res)
	if res.Result().Result != "all files read" {
		t.Fatalf("result %+v", res.Result())
	}
	cb := eventsOf(res, event.CompactBoundary)
	if len(cb) == 0 || cb[0].Trigger != "auto" || cb[0].TokensAfter >= cb[0].TokensBefore {
		t.Fatalf("compact_boundary events: %+v", cb)
	}
	if len(eventsOf(res, event.Context)) < 26 {
		t.Errorf("context events: %d", len(eventsOf(res, event.Context)))
	}
	for _, r := range x.srv.Requests() {
		if r.Overflow {
			t.Fatalf("a request of %d bytes passed the server's window", len(r.RawBody))
		}
	}
	id := res.Result().SessionID
	show := x.Run("sessions", "show", id)
	if show.Code != 0 || !strings.Contains(show.Stdout, "── compacted (auto)") || !strings.Contains(show.Stdout, "E2E-SUMMARY") || !strings.Contains(show.Stdout, "context ") {
		t.Fatalf("sessions show:\n%s%s", show.Stdout, show.Stderr)
	}
	ex, r := x.Export(id)
	if r.Code != 0 {
		t.Fatal(r.Stderr)
	}
	results, boundaries := 0, 0
	for _, m := range ex.Messages {
		if m.Kind == message.KindCompaction {
			boundaries++
		}
		for _, b := range m.Content {
			if b.Type == message.ToolResult {
				results++
			}
		}
	}
	if results != 26 || boundaries != len(cb) {
		t.Errorf("export: %d tool results, %d boundaries (want 26, %d)", results, boundaries, len(cb))
	}

	res = x.RunStream("anything left?", "--resume", id)
	mustSucceed(t, res)
	if res.Result().Result != "resumed fine" {
		t.Fatalf("resumed result %+v", res.Result())
	}
	body := string(x.lastMain().RawBody)
	if !strings.Contains(body, "E2E-SUMMARY") || strings.Contains(body, "package src // file00") || !strings.Contains(body, "anything left?") {
		t.Errorf("the resumed request does not continue from the summary")
	}
	checkToolPairs(t, x.lastMain())
}

// A signal while the summary is being written (SIGINT, or SIGKILL) loses
// nothing that was stored and the session resumes and completes.
func TestE2ECompactionSignalDuringSummary(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			x := newE2E(t, scripted.Script{})
			slow := &scripted.Step{Text: e2eSummary, Fault: &scripted.Fault{FirstByteDelayMS: 30_000, Times: 1}}
			x.restart(t, scripted.Script{Steps: readScript(x, 26), StepMarkers: true, ContextLimit: 200_000, Fallback: slow})
			x.WriteConfig(`{"compaction": {"prune": false}}`)
			p := x.Start("run", "-p", "read every file under src", "--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "trust")
			st := p.WaitEvent("compaction start", 30*time.Second, func(e event.Event) bool {
				return e.Type == event.Status && strings.Contains(e.Message, "compacting")
			})
			id := st.SessionID
			before, _ := x.Export(id)
			p.Signal(sig)
			p.Wait(10 * time.Second)
			after, r := x.Export(id)
			if r.Code != 0 {
				t.Fatalf("export after %s: %s", sig, r.Stderr)
			}
			if len(after.Messages) < len(before.Messages) {
				t.Fatalf("messages lost: %d before the signal, %d after", len(before.Messages), len(after.Messages))
			}
			for _, m := range after.Messages {
				if m.Kind != "" {
					t.Fatalf("an unfinished compaction was stored: %+v", m)
				}
			}
			res := x.RunStream("carry on", "--resume", id, "--permission-mode", "trust")
			mustSucceed(t, res)
			if res.Result().Result != "all files read" || len(eventsOf(res, event.CompactBoundary)) == 0 {
				t.Fatalf("resumed: %+v, %d compactions", res.Result(), len(eventsOf(res, event.CompactBoundary)))
			}
		})
	}
}

// tandem sessions compact ID --focus compacts a finished session now.
func TestE2ESessionsCompactCommand(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	x.restart(t, scripted.Script{Steps: readScript(x, 3), StepMarkers: true, Fallback: &scripted.Step{Text: e2eSummary}})
	res := x.RunStream("read three files", "--permission-mode", "trust")
	mustSucceed(t, res)
	id := res.Result().SessionID
	out := x.Run("sessions", "compact", id, "--focus", "the file names")
	if out.Code != 0 || !strings.Contains(out.Stdout, "Compacted") {
		t.Fatalf("sessions compact: exit %d\n%s%s", out.Code, out.Stdout, out.Stderr)
	}
	focused := false
	for _, r := range x.srv.Requests() {
		if r.Side && strings.Contains(string(r.RawBody), "the file names") {
			focused = true
		}
	}
	if !focused {
		t.Error("the focus did not reach the summary request")
	}
	ex, _ := x.Export(id)
	last := ex.Messages[len(ex.Messages)-1]
	if last.Kind != message.KindCompaction || last.Compaction.Trigger != "manual" || last.Compaction.Focus != "the file names" {
		t.Errorf("last stored message: %+v", last)
	}
	if bad := x.Run("sessions", "compact", "ses_nosuch"); bad.Code == 0 || !strings.Contains(bad.Stderr, "sessions list") {
		t.Errorf("unknown session: exit %d %s", bad.Code, bad.Stderr)
	}
}

// restart replaces the test's scripted server (the files a script reads
// must exist in the workspace first, so the script comes after newE2E).
func (x *e2e) restart(t *testing.T, script scripted.Script) {
	t.Helper()
	if x.srv != nil {
		x.srv.Close()
	}
	x.srv, x.url = testfiles.Scripted(t, script)
}

// An OpenAI-compatible server (vLLM's error shape) whose real window is 50k
// while the config says 200k: the binary recovers, learns the limit into
// the session meta and finishes the task.
func TestE2ECompactionLearnsVLLMLimit(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{})
	steps := readScript(x, 12)
	x.restart(t, scripted.Script{Steps: steps, StepMarkers: true, ContextLimit: 50_000, OverflowDialect: "vllm",
		Fallback: &scripted.Step{Text: e2eSummary}})
	x.WriteConfig(fmt.Sprintf(`{"providers": {"local": {"kind": "openai-compatible", "base_url": %q, "api_key": "k",
		"models": {"qwen-coder": {"context_window": 200000}}}}}`, x.url+"/v1"))
	res := x.RunStream("read every file under src", "--model", "local/qwen-coder", "--permission-mode", "trust")
	mustSucceed(t, res)
	if res.Result().Result != "all files read" {
		t.Fatalf("result %+v", res.Result())
	}
	refused := 0
	for _, r := range x.srv.Requests() {
		if r.Overflow {
			refused++
		}
	}
	cb := eventsOf(res, event.CompactBoundary)
	if refused == 0 || refused > 2 || len(cb) == 0 || cb[0].Trigger != "overflow" {
		t.Fatalf("%d refused requests, compactions %+v", refused, cb)
	}
	ex, _ := x.Export(res.Result().SessionID)
	meta, _ := ex.Session["meta"].(map[string]any)
	if limit, _ := meta["context_limit"].(string); !strings.Contains(limit, `"model":"local/qwen-coder"`) {
		t.Errorf("learned limit not kept: %v", meta)
	}
}
