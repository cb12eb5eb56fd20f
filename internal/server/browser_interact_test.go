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

// In the web UI, AskUserQuestion is a form (options, free text) and
// ExitPlanMode a plan to approve: the answers reach the model, a plan sent
// back carries the feedback, and approving with "accept edits" leaves
// explore mode for acceptEdits.
func TestBrowserQuestionAndPlanApproval(t *testing.T) {
	chromium(t)
	question := map[string]any{"questions": []any{map[string]any{
		"question": "Which database should sessions use?", "header": "Database", "multiSelect": false,
		"options": []any{map[string]any{"label": "SQLite", "description": "one file"}, map[string]any{"label": "PostgreSQL", "description": "a server"}}}}}
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("AskUserQuestion", question)),
		scripted.ToolStep(scripted.Call("ExitPlanMode", map[string]any{"plan": "1. Add the **PostgreSQL** store."})),
		scripted.ToolStep(scripted.Call("ExitPlanMode", map[string]any{"plan": "1. Add the store.\n2. Migrate the data."})),
		scripted.TextStep("Working on it."),
	}}
	model, url := testfiles.Scripted(t, script)
	e := newEnv(t, scripted.Script{}, func(_ *server.Options, c *servertest.Config) { c.ModelURL = url })
	id := e.newSession()
	e.mustDo("PATCH", "/api/sessions/"+id, map[string]string{"mode": "explore"}, 200, nil)
	ctx, cancel := newBrowser(t, 1100, 800)
	defer cancel()
	dir := screenshotDir(t)
	run := runner(t, ctx, dir, "interact-failure", 30*time.Second)
	run("open",
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL+"/#"+id),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), "plan the storage change\r"),
	)
	run("question",
		chromedp.WaitVisible(chromedp.CSS(`#perm-dialog[open] input[type=radio][value="PostgreSQL"]`)),
		chromedp.Click(chromedp.CSS(`input[type=radio][value="PostgreSQL"]`)),
		chromedp.WaitEnabled(chromedp.ID("perm-once")),
	)
	if got := text(t, ctx, chromedp.ID("perm-once")); got != "Answer" {
		t.Errorf("answer button = %q", got)
	}
	run("answer", chromedp.Click(chromedp.ID("perm-once")))
	run("plan",
		chromedp.WaitVisible(chromedp.CSS(`#perm-dialog[open] .plan strong`)),
		chromedp.WaitEnabled(chromedp.ID("perm-deny")),
		chromedp.SendKeys(chromedp.ID("perm-message"), "add a migration step"),
		chromedp.Click(chromedp.ID("perm-deny")),
	)
	run("revised plan",
		chromedp.WaitVisible(chromedp.Search(`//dialog[@open]//div[@class="plan"][contains(., "Migrate the data")]`)),
		chromedp.WaitEnabled(chromedp.ID("perm-always")),
		chromedp.Click(chromedp.ID("perm-always")),
		chromedp.WaitNotPresent(chromedp.CSS("#perm-dialog[open]")),
	)
	deadline := time.Now().Add(20 * time.Second)
	for len(model.MainRequests()) < 4 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	reqs := model.MainRequests()
	if len(reqs) < 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if b := string(reqs[1].RawBody); !strings.Contains(b, `\"Which database should sessions use?\": PostgreSQL`) {
		t.Errorf("the answer did not reach the model:\n%.2000s", b)
	}
	if b := string(reqs[2].RawBody); !strings.Contains(b, "add a migration step") {
		t.Errorf("the feedback did not reach the model:\n%.2000s", b)
	}
	if m := e.sessionMode(id); m != "acceptEdits" {
		t.Errorf("mode after approval = %q, want acceptEdits", m)
	}
}
