package cliproto

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

// The host's hooks become callback hooks of tandem's runner: matchers
// select them, each call is a hook_callback request with Claude Code's
// input, and the answer is read as a command hook's JSON output.
func TestSDKHooksAreCallbackHooks(t *testing.T) {
	pr, pw := io.Pipe()
	var warned strings.Builder
	d := &driver{o: Options{Stderr: &warned}, w: &writer{out: pw}}
	d.ctl = newControl(d.w)
	cfg, err := d.parseHooks(json.RawMessage(`{
		"PostToolUse":[{"matcher":"Edit|Write","hookCallbackIds":["h0"],"timeout":5}],
		"Stop":[{"hookCallbackIds":["h1","h2"]}],
		"PermissionDenied":[{"hookCallbackIds":["h3"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warned.String(), "PermissionDenied") {
		t.Errorf("an event tandem does not fire was not reported: %q", warned.String())
	}
	// The host: answers every hook_callback by its callback id.
	answers := map[string]string{
		"h0": `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"ran the formatter"}}`,
		"h1": `{"decision":"block","reason":"run the tests first"}`,
		"h2": `{"systemMessage":"checked"}`,
	}
	requests := make(chan map[string]any, 8)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var line struct {
				RequestID string         `json:"request_id"`
				Request   map[string]any `json:"request"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Request["subtype"] != "hook_callback" {
				continue
			}
			requests <- line.Request
			id, _ := line.Request["callback_id"].(string)
			_ = d.ctl.deliver(json.RawMessage(`{"type":"control_response","response":{"subtype":"success","request_id":"` +
				line.RequestID + `","response":` + answers[id] + `}}`))
		}
	}()
	r := hooks.NewRunner(cfg, t.TempDir(), []string{})

	out, err := r.Run(t.Context(), hooks.Input{HookEventName: hooks.PostToolUse, SessionID: "ses_1", PermissionMode: "askEdits",
		ToolName: "Write", ToolUseID: "toolu_1", ToolInput: json.RawMessage(`{"file_path":"/w/a.txt"}`)})
	if err != nil || len(out.Errors) > 0 || out.AdditionalContext != "ran the formatter" {
		t.Fatalf("PostToolUse: %+v %v", out, err)
	}
	req := <-requests
	in, _ := req["input"].(map[string]any)
	if req["callback_id"] != "h0" || req["tool_use_id"] != "toolu_1" || in["hook_event_name"] != "PostToolUse" ||
		in["tool_name"] != "Write" || in["session_id"] != "ses_1" || in["permission_mode"] != "default" || in["cwd"] == "" {
		t.Errorf("hook_callback request: %v", req)
	}
	if _, ok := in["transcript_path"]; !ok {
		t.Errorf("input lacks transcript_path: %v", in)
	}
	// A tool the matcher leaves out calls nothing.
	if out, _ := r.Run(t.Context(), hooks.Input{HookEventName: hooks.PostToolUse, ToolName: "Read"}); out.AdditionalContext != "" {
		t.Errorf("Read matched Edit|Write: %+v", out)
	}
	out, err = r.Stop(t.Context(), hooks.Input{SessionID: "ses_1", LastAssistantMessage: "done"})
	if err != nil || out.Decision != hooks.DecisionDeny || out.Reason != "run the tests first" || out.SystemMessage != "checked" {
		t.Errorf("Stop: %+v %v", out, err)
	}
	got := map[any]bool{}
	for range 2 {
		got[(<-requests)["callback_id"]] = true
	}
	if !got["h1"] || !got["h2"] {
		t.Errorf("Stop called %v, want h1 and h2", got)
	}
	select {
	case extra := <-requests:
		t.Errorf("unexpected hook_callback %v", extra)
	default:
	}
	if _, err := d.parseHooks(json.RawMessage(`{"PreToolUse":[{"matcher":"(","hookCallbackIds":["h"]}]}`)); err == nil {
		t.Error("a bad matcher was accepted")
	}
	pw.Close()
}
