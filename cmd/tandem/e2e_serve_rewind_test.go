package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The HTTP API lists a session's checkpoints and rewinds it: files only,
// then a refused rewind over an outside change, then both with force.
func TestE2EServeCheckpointsAndRewind(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]any{"file_path": "notes.txt", "content": "v1\n"})),
		scripted.TextStep("one done"),
		scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "echo v2 > notes.txt && echo new > made.txt"})),
		scripted.TextStep("two done"),
	}})
	addr := freeAddr(t)
	const token = "e2e-serve-token-0123456789"
	p := x.Start("serve", "--addr", addr, "--token", token, "--workspace", x.Work, "--permission-mode", "trust")
	defer p.Wait(15 * time.Second)
	defer p.Signal(15)
	base := "http://" + addr
	waitListening(t, base)
	call := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		var rd *bytes.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		} else {
			rd = bytes.NewReader(nil)
		}
		req, _ := http.NewRequest(method, base+path, rd)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	_, sess := call("POST", "/api/sessions", map[string]string{"cwd": x.Work, "mode": "trust"})
	id := fmt.Sprint(sess["id"])
	turn := func(text string, wantMsgs float64) {
		t.Helper()
		if code, out := call("POST", "/api/sessions/"+id+"/messages", map[string]string{"text": text}); code != 202 {
			t.Fatalf("post message: %d %v", code, out)
		}
		waitFor(t, "the turn to finish", 20*time.Second, func() bool {
			_, got := call("GET", "/api/sessions/"+id, nil)
			return got["status"] == "idle" && got["message_count"] == wantMsgs
		})
	}
	turn("one", 4)
	turn("two", 8)

	code, list := call("GET", "/api/sessions/"+id+"/checkpoints", nil)
	cps, _ := list["checkpoints"].([]any)
	if code != 200 || len(cps) != 2 {
		t.Fatalf("checkpoints: %d %v", code, list)
	}
	if files := fmt.Sprint(cps[1].(map[string]any)["files"]); !strings.Contains(files, "path:made.txt state:absent") || !strings.Contains(files, "path:notes.txt state:saved") {
		t.Errorf("checkpoint 2 files: %s", files)
	}

	code, res := call("POST", "/api/sessions/"+id+"/rewind", map[string]any{"to": 2, "restore": "files"})
	if code != 200 || x.ReadFile("notes.txt") != "v1\n" || fileExists(x.Work+"/made.txt") {
		t.Fatalf("files rewind: %d %v, notes.txt %q", code, res, x.ReadFile("notes.txt"))
	}
	if _, got := call("GET", "/api/sessions/"+id, nil); got["message_count"] != 8.0 {
		t.Errorf("a files-only rewind changed the conversation: %v", got["message_count"])
	}

	x.WriteFile("notes.txt", "mine\n")
	code, res = call("POST", "/api/sessions/"+id+"/rewind", map[string]any{"to": 1})
	if errObj, _ := res["error"].(map[string]any); code != 409 || errObj["code"] != "changed_outside" || !strings.Contains(fmt.Sprint(errObj["message"]), "notes.txt") {
		t.Fatalf("rewind over an outside change: %d %v", code, res)
	}
	code, res = call("POST", "/api/sessions/"+id+"/rewind", map[string]any{"to": 1, "force": true})
	if code != 200 || fileExists(x.Work+"/notes.txt") || res["messages_removed"] != 8.0 {
		t.Fatalf("rewind to 1: %d %v", code, res)
	}
	_, got := call("GET", "/api/sessions/"+id, nil)
	if msgs, _ := got["messages"].([]any); got["message_count"] != 0.0 || len(msgs) != 0 {
		t.Errorf("conversation after rewind to 1: %v", got["message_count"])
	}
	if code, res := call("POST", "/api/sessions/"+id+"/rewind", map[string]any{"to": 1, "restore": "code"}); code != 400 {
		t.Errorf("bad restore value: %d %v", code, res)
	}
}
