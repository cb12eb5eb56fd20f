package server_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// A turn's checkpoint (what the web UI's and the terminal's rewind list)
// names only the files a call changed: not a Write a deny rule refused, an
// Edit the user rejected, one a PreToolUse hook blocked, or one whose
// old_string is not in the file; the Edit that worked is there.
func TestCheckpointListsOnlyChangedFiles(t *testing.T) {
	files := map[string]string{"rejected.txt": "r1\n", "hooked.txt": "h1\n", "missing.txt": "m1\n", "ok.txt": "ok1\n"}
	edit := func(id, file, old string) scripted.ToolCall {
		return scripted.CallID(id, "Edit", map[string]string{"file_path": file, "old_string": old, "new_string": "changed"})
	}
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(
			scripted.CallID("r1", "Read", map[string]string{"file_path": "rejected.txt"}),
			scripted.CallID("r2", "Read", map[string]string{"file_path": "hooked.txt"}),
			scripted.CallID("r3", "Read", map[string]string{"file_path": "missing.txt"}),
			scripted.CallID("r4", "Read", map[string]string{"file_path": "ok.txt"})),
		scripted.ToolStep(
			scripted.CallID("w1", "Write", map[string]string{"file_path": "denied.txt", "content": "no\n"}),
			edit("e1", "rejected.txt", "r1"),
			edit("e2", "hooked.txt", "h1"),
			edit("e3", "missing.txt", "not in the file"),
			edit("e4", "ok.txt", "ok1")),
		scripted.TextStep("done"),
	}}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) {
		c.Checkpoints = true
		c.AskTools = []string{"Edit(rejected.txt)"}
		c.UserConfig = map[string]any{"permissions": map[string]any{
			"deny": []string{"Write(denied.txt)"},
			"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Edit", "hooks": []any{
				map[string]any{"type": "command", "command": `if grep -q hooked.txt; then echo 'not this one' >&2; exit 2; fi`}}}}},
		}}
	})
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "edit them all")
	evs := until(t, ch, isType(event.PermissionRequest))
	if req := evs[len(evs)-1].Event; req.ToolUseID != "e1" {
		t.Fatalf("asked about %+v, want the Edit of rejected.txt", req)
	}
	e.mustDo("POST", "/api/permissions/"+evs[len(evs)-1].Event.RequestID, map[string]string{"decision": "deny"}, 200, nil)
	evs = append(evs, until(t, ch, isType(event.Done))...)
	errs := map[string]bool{}
	for _, ev := range evs {
		if ev.Event.Type == event.ToolResult {
			errs[ev.Event.ToolUseID] = ev.Event.IsError
		}
	}
	if want := map[string]bool{"r1": false, "r2": false, "r3": false, "r4": false, "w1": true, "e1": true, "e2": true, "e3": true, "e4": false}; !reflect.DeepEqual(errs, want) {
		t.Fatalf("tool results (is_error) %v, want %v", errs, want)
	}
	var s sessionResp
	waitIdle(t, e, id, &s)
	var got struct {
		Checkpoints []struct {
			Files []struct{ Path, State string }
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		e.mustDo("GET", "/api/sessions/"+id+"/checkpoints", nil, 200, &got)
		if len(got.Checkpoints) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(got.Checkpoints) != 1 {
		t.Fatalf("checkpoints %+v", got.Checkpoints)
	}
	var listed []string
	for _, f := range got.Checkpoints[0].Files {
		listed = append(listed, f.Path+"="+f.State)
	}
	if want := []string{"ok.txt=saved"}; !reflect.DeepEqual(listed, want) {
		t.Errorf("checkpoint 1 lists %v, want %v", listed, want)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "denied.txt")); !os.IsNotExist(err) {
		t.Errorf("denied.txt was written: %v", err)
	}
}
