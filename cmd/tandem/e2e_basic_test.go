package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestE2EReadBashWriteAndResume(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "a.txt"}), scripted.Call("Bash", map[string]any{"command": "echo from-bash"})).WithText("Looking."),
		scripted.ToolStep(scripted.Call("Write", map[string]any{"file_path": "b.txt", "content": "written\n"})),
		scripted.TextStep("Done."),
		scripted.TextStep("Second turn answer."),
	}})
	x.WriteFile("a.txt", "hello\n")
	r := x.RunStream("do it", "--permission-mode", "trust")
	mustSucceed(t, r)
	if got := x.ReadFile("b.txt"); got != "written\n" {
		t.Fatalf("b.txt = %q", got)
	}
	// A command's output may come in several tool_output events (the
	// streamer flushes on a timer, the secret redactor holds back a tail
	// until the command ends): a run of them counts as one here.
	want := "status rewind_point text context tool_use tool_use tool_result tool_output tool_result context tool_use tool_result text context result done"
	var types []string
	for _, typ := range r.Types() {
		if typ != "tool_output" || len(types) == 0 || types[len(types)-1] != typ {
			types = append(types, typ)
		}
	}
	if got := strings.Join(types, " "); got != want {
		var outs []string
		for _, e := range r.Events {
			if e.Type == "tool_output" {
				outs = append(outs, e.Stream+":"+strconv.Quote(e.Output))
			}
		}
		t.Errorf("events:\n got %s\nwant %s\ntool_output: %v", got, want, outs)
	}
	res := r.Result()
	if res.Result != "Done." || res.NumTurns != 3 || res.SessionID == "" || res.Seq == 0 {
		t.Errorf("result %+v", res)
	}
	// A second turn resumes the stored conversation.
	r2 := x.Run("run", "--resume", res.SessionID, "-p", "again", "--output-format", "json")
	mustSucceed(t, r2)
	if r2.Result().Result != "Second turn answer." || r2.Result().Seq <= res.Seq {
		t.Errorf("second turn: %+v", r2.Result())
	}
	reqs := x.srv.MainRequests()
	last := reqs[len(reqs)-1]
	if n := len(last.Messages()); n != 7 {
		t.Errorf("resumed request carried %d messages, want 7", n)
	}
	show := x.Run("sessions", "show", res.SessionID)
	for _, want := range []string{"do it", "Read", "from-bash", "Second turn answer."} {
		if !strings.Contains(show.Stdout, want) {
			t.Errorf("sessions show lacks %q:\n%s", want, show.Stdout)
		}
	}
}
