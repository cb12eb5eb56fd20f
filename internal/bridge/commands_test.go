package bridge

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The chat's session commands on a real session: /cost and /model show
// the session's; /rewind lists the checkpoints and goes back, undoing the
// turn's file; /sessions lists the folder's sessions and /resume binds the
// chat to an earlier one.
func TestSessionCommandsFromTheChat(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "out.txt", "content": "new\n"})),
		scripted.TextStep("Wrote it."),
	}}
	e := newEnv(t, script, nil)
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session ses_") })
	first := regexp.MustCompile(`New session (ses_[0-9a-z]+)`).FindStringSubmatch(f.transcript())[1]
	e.send("alice", "write the file")
	msgID, bs := "", []Button(nil)
	f.waitFor(t, "the question", func() bool { msgID, bs = f.buttonsOf("Permission needed"); return len(bs) > 0 })
	f.updates <- Update{ID: "p1", Chat: Chat{ID: "c1"}, User: "alice", UserName: "alice", Press: &Press{ID: "q1", Data: bs[0].Data, MessageID: msgID}}
	f.waitFor(t, "the answer", func() bool { return f.has("Wrote it.") })
	e.idle()
	out := filepath.Join(e.ws, "proj", "out.txt")
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("the turn did not write the file: %v", err)
	}

	e.send("alice", "/cost")
	f.waitFor(t, "the cost", func() bool { return f.has("Cost ") && f.has("tokens:") })
	e.send("alice", "/model")
	f.waitFor(t, "the model", func() bool { return f.has("Model: scripted/") })

	e.send("alice", "/rewind")
	f.waitFor(t, "the checkpoints", func() bool { return f.has("1. write the file") })
	e.send("alice", "/rewind 1")
	f.waitFor(t, "the rewind", func() bool { return f.has("Rewound to before prompt 1:") })
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the rewind left the turn's file: %v", err)
	}
	e.send("alice", "/rewind x")
	f.waitFor(t, "the refusal", func() bool { return f.has("Say which: /rewind N") })

	e.send("alice", "/new proj")
	f.waitFor(t, "a second session", func() bool { return strings.Count(f.transcript(), "New session ses_") == 2 })
	e.send("alice", "/sessions")
	f.waitFor(t, "the list", func() bool { return f.has("Recent sessions") && f.has(first) })
	e.send("alice", "/resume "+first)
	f.waitFor(t, "the resume", func() bool { return f.has("Resumed " + first) })
	e.send("alice", "/resume ses_nosuchsession0000000000")
	f.waitFor(t, "the refusal", func() bool { return strings.Count(f.transcript(), "⚠") >= 1 })
}
