package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// A real MCP server's question (server-everything's elicitation tool) is
// a form in the web UI: its defaults filled in, a required field left
// empty named by the server's check, then the answer accepted and the
// server's reply, with the defaults, reaching the model.
func TestBrowserElicitationForm(t *testing.T) {
	chromium(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("mcp__ev__trigger-elicitation-request", map[string]any{})),
		scripted.TextStep("Thanks."),
	}}
	model, url := testfiles.Scripted(t, script)
	ev := withEverything(t)
	e := newEnv(t, scripted.Script{}, func(o *server.Options, c *servertest.Config) { ev(o, c); c.ModelURL = url })
	id := e.newSession()
	e.mustDo("PATCH", "/api/sessions/"+id, map[string]string{"mode": "trust"}, 200, nil)
	ctx, cancel := newBrowser(t, 1100, 900)
	defer cancel()
	run := runner(t, ctx, screenshotDir(t), "elicit-failure", 60*time.Second)
	run("open",
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL+"/#"+id),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), "ask me\r"),
	)
	run("form", chromedp.WaitVisible(chromedp.CSS(`#perm-dialog[open] .elicit-form input[name="name"]`)))
	if got := text(t, ctx, chromedp.ID("perm-title")); got != "MCP server ev asks" {
		t.Errorf("title = %q", got)
	}
	integer, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`.elicit-form input[name="integer"]`)))
	if err != nil || integer != "42" {
		t.Errorf("the integer field's default = %q, want 42 (%v)", integer, err)
	}
	run("accept empty", chromedp.WaitEnabled(chromedp.ID("perm-once")), chromedp.Click(chromedp.ID("perm-once")),
		chromedp.WaitVisible(chromedp.Search(`//*[@id="perm-error"][contains(., "String: required")]`)))
	run("fill and accept",
		chromedp.SendKeys(chromedp.CSS(`.elicit-form input[name="name"]`), "Ana Lima"),
		chromedp.Click(chromedp.ID("perm-once")),
		chromedp.WaitNotPresent(chromedp.CSS("#perm-dialog[open]")),
	)
	deadline := time.Now().Add(20 * time.Second)
	for len(model.MainRequests()) < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	reqs := model.MainRequests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	b := string(reqs[1].RawBody)
	for _, want := range []string{"User provided the requested information", "Name: Ana Lima", "Favorite Integer: 42"} {
		if !strings.Contains(b, want) {
			t.Errorf("the server's answer lacks %q:\n%.3000s", want, b)
		}
	}
}
