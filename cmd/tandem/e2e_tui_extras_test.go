package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The terminal UI's everyday extras in a real tmux pane: the statusLine
// command of the user's Claude Code settings (fed Claude Code's JSON),
// `!cmd` whose output the next prompt carries, a pasted image path sent as
// an image, `# line` added to the chosen memory file, and a bell + OSC 9
// when a turn ends while the terminal is out of focus.
func TestE2ETUIExtras(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "Noted the output."}})
	statusIn := filepath.Join(x.Home, "status-in.json")
	settings := map[string]any{"statusLine": map[string]any{"type": "command",
		"command": "cat > " + shellQuote(statusIn) + "; echo 'SL-MARK custom line'"}}
	data, _ := json.Marshal(settings)
	if err := os.MkdirAll(filepath.Join(x.Home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	x.WriteFile("../home/.claude/settings.json", string(data))
	png := testPNG(t)
	x.WriteFile("shot.png", string(png))

	p := x.startTUI(110, 30, "--model", "anthropic/claude-sonnet-5-5")
	p.waitText("Ask tandem")
	p.waitText("SL-MARK custom line")
	var in struct {
		SessionID string `json:"session_id"`
		Model     struct {
			ID string `json:"id"`
		} `json:"model"`
		Workspace struct {
			CurrentDir string `json:"current_dir"`
		} `json:"workspace"`
		HookEventName string `json:"hook_event_name"`
	}
	raw, err := os.ReadFile(statusIn)
	if err != nil || json.Unmarshal(raw, &in) != nil || !strings.HasPrefix(in.SessionID, "ses_") ||
		in.Model.ID != "anthropic/claude-sonnet-5-5" || in.Workspace.CurrentDir != x.Work || in.HookEventName != "Status" {
		t.Errorf("statusLine stdin: %v %s", err, raw)
	}

	// !cmd is judged as the Bash call it is (this one asks: an expansion),
	// then runs and shows its output.
	p.typeText("!echo shell-marker-$((40+2))")
	p.keys("Enter")
	p.waitText("Permission · Bash")
	p.waitText("[y] allow once")
	time.Sleep(time.Second) // the dialog takes keys 400 ms after it shows (dialogArmDelay)
	p.keys("y")
	p.waitText("shell-marker-42")

	// A pasted image path becomes an @mention the prompt attaches.
	p.tmux("set-buffer", "-b", "img", filepath.Join(x.Work, "shot.png"))
	p.tmux("paste-buffer", "-p", "-b", "img", "-t", "t")
	p.waitText("@" + filepath.Join(x.Work, "shot.png"))
	p.typeText("what is this?")
	// Out of focus before the turn ends: the terminal says so with ESC [ O.
	out := filepath.Join(t.TempDir(), "pane-output")
	p.tmux("pipe-pane", "-O", "-t", "t", "cat >> "+shellQuote(out))
	p.tmux("send-keys", "-t", "t", "-H", "1b", "5b", "4f")
	p.keys("Enter")
	p.waitText("Noted the output.")
	reqs := x.srv.MainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	body := string(reqs[0].RawBody)
	if !strings.Contains(body, base64.StdEncoding.EncodeToString(png)) {
		t.Errorf("the pasted image did not reach the request:\n%.1500s", body)
	}
	_, blocks := anthropicBlocks(reqs[0].Messages()[0])
	if len(blocks) == 0 || !strings.Contains(blocks[0]["text"].(string), "<bash-input>echo shell-marker-$((40+2))</bash-input>\n<bash-stdout>shell-marker-42</bash-stdout>") {
		t.Errorf("the ! command's output did not go with the next prompt:\n%s", body[strings.Index(body, `"messages"`):])
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := os.ReadFile(out)
		if strings.Contains(string(got), "\a\x1b]9;tandem: turn finished\a") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no bell + OSC 9 notification in the pane's output:\n%q", got)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// # line: asked where, then added to the user's memory file.
	p.typeText("# always run make lint")
	p.keys("Enter")
	p.waitText("in which memory?")
	p.keys("u")
	p.waitText("Remembered in")
	mem, err := os.ReadFile(filepath.Join(x.Home, "AGENTS.md")) // TANDEM_HOME: the config folder
	if err != nil || string(mem) != "- always run make lint\n" {
		t.Errorf("user memory: %v %q", err, mem)
	}
	if len(x.srv.MainRequests()) != 1 {
		t.Error("a # line was sent to the model")
	}
}
