package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// commandsPageJS: the page's notices, the pickers and the messages posted.
const commandsPageJS = `(() => {
  const posts = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('/messages')).length;
  const notes = [...document.querySelectorAll('#log .notice')].map((n) => n.textContent).join(' | ');
  return 'posts:' + posts + ' | model:' + document.getElementById('model-select').value + ' | mode:' + document.getElementById('mode-select').value + ' | ' + notes;
})()`

// The reserved commands are answered by the page itself, never sent to
// the model as text: /cost, /status, /help, /model, /mode, /clear.
func TestBrowserBuiltinCommands(t *testing.T) {
	chromium(t)
	e := newEnv(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	id := e.newSession()
	ctx, _ := openAndSend(t, e, id, "/cost")
	waitPage(t, ctx, `(`+commandsPageJS+`).includes('This session: 0 input tokens, 0 output') ? 'shown' : (`+commandsPageJS+`)`, "shown")
	for _, c := range []struct{ cmd, want string }{
		{"/status", "Session: " + id},
		{"/help", "/rewind — built in"},
		{"/mode explore", "mode:explore"},
		{"/model", "Model: scripted/claude-sonnet-4-5"},
	} {
		typeInto(t, ctx, c.cmd)
		waitPage(t, ctx, `(`+commandsPageJS+`).includes(`+jsString(c.want)+`) ? 'shown' : (`+commandsPageJS+`)`, "shown")
	}
	if got := evalString(t, ctx, commandsPageJS); !strings.HasPrefix(got, "posts:0 ") {
		t.Errorf("a built-in command was posted as a message: %s", got)
	}
	if got := e.sessionMode(id); got != "explore" {
		t.Errorf("/mode explore left the session in mode %q", got)
	}
	typeInto(t, ctx, "/clear")
	waitPage(t, ctx, `location.hash.slice(1) !== `+jsString(id)+` && location.hash.length > 1 ? 'new session' : location.hash`, "new session")
}

// typeInto types text into the prompt and sends it with Enter.
func typeInto(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, chromedp.WaitEnabled(chromedp.ID("prompt")), chromedp.SendKeys(chromedp.ID("prompt"), text+"\r")); err != nil {
		t.Fatalf("type %q: %v\n%s", text, err, pageState(ctx))
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (e *env) sessionMode(id string) string {
	e.t.Helper()
	var s sessionResp
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &s)
	return s.Mode
}
