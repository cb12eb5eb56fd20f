package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A client that offers fs and terminal gets them used: Read sees its
// unsaved buffer, Edit's result arrives through fs/write_text_file, Bash
// runs in a terminal it creates (embedded in the tool call, its output in
// the tool result), and a cancelled turn kills the terminal's command.
func TestACPClientFilesAndTerminal(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("read1", "Read", map[string]any{"file_path": "greet.txt"})),
		scripted.ToolStep(scripted.CallID("edit1", "Edit", map[string]any{"file_path": "greet.txt", "old_string": "unsaved", "new_string": "edited"})),
		scripted.ToolStep(scripted.CallID("bash1", "Bash", map[string]any{"command": "echo from-terminal-$((6*7)) \"[$ANTHROPIC_API_KEY]\"; pwd"})),
		scripted.TextStep("Done in the editor."),
		scripted.ToolStep(scripted.CallID("sleep1", "Bash", map[string]any{"command": "sleep 300"})),
		scripted.TextStep("unreachable"),
	}})
	greet := x.WriteFile("greet.txt", "hello from disk\n")
	l := runACPClient(t, x, "SCENARIO=client-fs-terminal", "BUFFER_PATH="+greet, "BUFFER_TEXT=hello from the unsaved buffer\n")

	if r := l.response(t, "edit"); r["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v", r)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) < 4 {
		t.Fatalf("%d model requests", len(reqs))
	}
	if body := string(reqs[1].RawBody); !strings.Contains(body, "hello from the unsaved buffer") || strings.Contains(body, "hello from disk") {
		t.Errorf("Read did not return the client's buffer:\n%.2000s", body)
	}
	if len(l.Reads) == 0 || l.Reads[0] != greet {
		t.Errorf("fs/read_text_file calls: %v", l.Reads)
	}
	if len(l.Writes) != 1 || l.Writes[0].Path != greet || l.Writes[0].Content != "hello from the edited buffer\n" {
		t.Errorf("fs/write_text_file calls: %+v", l.Writes)
	}
	if got := x.ReadFile("greet.txt"); got != "hello from the edited buffer\n" {
		t.Errorf("greet.txt = %q (the client saves what it was sent)", got)
	}

	var created []string
	methods := map[string]bool{}
	for _, e := range l.Terminal {
		methods[e.Method] = true
		if e.Method == "create" {
			created = append(created, e.TerminalID)
			if filepath.Base(e.Command) != "bash" && filepath.Base(e.Command) != "sh" || len(e.Args) != 2 || e.Args[0] != "-c" || e.Cwd != x.Work {
				t.Errorf("terminal/create: %+v", e)
			}
			blanked := false
			for _, v := range e.Env {
				blanked = blanked || (v.Name == "ANTHROPIC_API_KEY" && v.Value == "")
			}
			if !blanked {
				t.Errorf("terminal/create does not blank the provider key: %+v", e.Env)
			}
		}
	}
	for _, m := range []string{"create", "wait_for_exit", "output", "release", "kill"} {
		if !methods[m] {
			t.Errorf("terminal/%s was not used: %+v", m, l.Terminal)
		}
	}
	if len(created) != 2 {
		t.Fatalf("terminals created: %v", created)
	}
	if body := string(reqs[3].RawBody); !strings.Contains(body, "from-terminal-42 []") || !strings.Contains(body, x.Work) {
		t.Errorf("the terminal's output is not the tool result:\n%.2000s", body)
	}
	embedded := false
	for _, u := range l.updates("tool_call_update") {
		if u["toolCallId"] != "bash1" {
			continue
		}
		content, _ := u["content"].([]any)
		for _, c := range content {
			if c, _ := c.(map[string]any); c["type"] == "terminal" && c["terminalId"] == created[0] {
				embedded = true
			}
		}
	}
	if !embedded {
		t.Errorf("the Bash tool call does not embed terminal %s", created[0])
	}
	if r := l.response(t, "cancel"); r["stopReason"] != "cancelled" {
		t.Errorf("cancelled prompt: %v", r)
	}
}
