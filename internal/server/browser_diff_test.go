package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// cardsJS describes the page's edit cards: for each card with a diff, its
// whole HTML, its added and removed lines, and whether any raw JSON of the
// call's input is on screen.
const cardsJS = `JSON.stringify([...document.querySelectorAll('.tool-card')].filter((c) => c.querySelector('.diff')).map((c) => ({
  html: c.outerHTML,
  add: [...c.querySelectorAll('.diff .add')].map((s) => s.textContent.trim()),
  del: [...c.querySelectorAll('.diff .del')].map((s) => s.textContent.trim()),
  json: [...c.querySelectorAll('.tool-input')].some((p) => p.offsetParent !== null) || c.innerText.includes('"old_string"') || c.innerText.includes('"content"'),
})))`

// An Edit, a MultiEdit and a Write show as diffs while the turn runs, and
// the same after the page is reloaded from the stored history: the
// tool_result block keeps the diff the live event carried.
func TestBrowserEditDiffSurvivesReload(t *testing.T) {
	chromium(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("r1", "Read", map[string]string{"file_path": "notes.txt"}),
			scripted.CallID("r2", "Read", map[string]string{"file_path": "old.txt"})),
		scripted.ToolStep(scripted.CallID("e1", "Edit", map[string]string{"file_path": "notes.txt", "old_string": "alpha", "new_string": "beta"})),
		scripted.ToolStep(scripted.CallID("m1", "MultiEdit", map[string]any{"file_path": "notes.txt", "edits": []map[string]string{{"old_string": "gamma", "new_string": "delta"}}})),
		scripted.ToolStep(scripted.CallID("w1", "Write", map[string]string{"file_path": "old.txt", "content": "fresh line\n"})),
		scripted.TextStep("all edited"),
	}}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.NoPermissions = true })
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("alpha\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "old.txt"), []byte("stale line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.newSession()
	dir := screenshotDir(t)
	ctx, cancel := newBrowser(t, 1100, 1400)
	defer cancel()
	run := runner(t, ctx, dir, "diff-failure", 45*time.Second)
	run("open the session",
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL+"/#"+id),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), "edit the notes\r"),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"md")][contains(., "all edited")]`)),
		chromedp.WaitNotPresent(chromedp.CSS("body.busy")),
	)
	shot(t, ctx, dir, "diff-01-live")
	live := evalString(t, ctx, cardsJS)

	var s sessionResp
	waitIdle(t, e, id, &s)
	run("reload",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"md")][contains(., "all edited")]`)),
	)
	shot(t, ctx, dir, "diff-02-reloaded")
	reloaded := evalString(t, ctx, cardsJS)

	for what, got := range map[string]string{"live": live, "reloaded": reloaded} {
		for _, want := range []string{`"add":["+beta"],"del":["-alpha"]`, `"add":["+delta"],"del":["-gamma"]`, `"add":["+fresh line"],"del":["-stale line"]`} {
			if !strings.Contains(got, want) {
				t.Errorf("%s page: no diff with %s in %s", what, want, got)
			}
		}
		if strings.Contains(got, `"json":true`) {
			t.Errorf("%s page shows an edit's input as raw JSON: %s", what, got)
		}
	}
	if live != reloaded {
		t.Errorf("the reloaded cards differ from the live ones:\nlive:     %s\nreloaded: %s", live, reloaded)
	}
}
