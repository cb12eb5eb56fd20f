package bridge

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/secrets"
)

// What the model writes reaches the chat redacted on every path, button
// labels included: an AskUserQuestion's option labels become buttons.
func TestButtonLabelsAreRedacted(t *testing.T) {
	const secret = "sk-bridge-label-0123456789abcdef"
	qs := map[string]any{"questions": []any{
		map[string]any{"question": "Which key?", "header": "Key", "options": []any{
			map[string]any{"label": "use " + secret, "description": "the one I found"},
			map[string]any{"label": "none", "description": "no key"},
		}},
	}}
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("AskUserQuestion", qs)),
		scripted.TextStep("Thanks."),
	}}
	e := newEnv(t, script, func(o *Options) {
		o.Redact = secrets.New([]string{"BRIDGE_TEST_KEY"}, nil).Redactor([]string{"BRIDGE_TEST_KEY=" + secret})
	})
	f := e.fake
	e.send("alice", "/new proj")
	f.waitFor(t, "the new session", func() bool { return f.has("New session") })
	e.send("alice", "ask me")
	f.waitFor(t, "the question", func() bool { _, bs := f.buttonsOf("Which key?"); return len(bs) > 0 })
	_, bs := f.buttonsOf("Which key?")
	for _, b := range bs {
		if strings.Contains(b.Label, secret[:12]) {
			t.Errorf("a button's label holds the secret: %q", b.Label)
		}
	}
	e.press("Which key?", "none")
	f.waitFor(t, "the end", func() bool { return f.has("Thanks.") })
	e.idle()
}
