package server_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// Each prompt in the web UI gets a rewind control (from the stored
// checkpoints on load, from the rewind_point event live); choosing "Code
// and conversation" puts the files back, empties the conversation and
// puts the prompt back into the composer.
func TestBrowserRewind(t *testing.T) {
	chromium(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.Call("Write", map[string]string{"file_path": "notes.txt", "content": "v1\n"})),
		scripted.TextStep("written"),
		// Slow enough that the turn outlasts the page's POST round trip.
		{Text: "second answer, streamed in several chunks", Fault: &scripted.Fault{DelayBetweenChunksMS: 100, Always: true}},
	}}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.NoPermissions, c.Checkpoints = true, true })
	var s sessionResp
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": e.ws}, 201, &s)
	e.mustDo("POST", "/api/sessions/"+s.ID+"/messages", map[string]string{"text": "write the notes"}, 202, nil)
	target := filepath.Join(e.ws, "notes.txt")
	deadline := time.Now().Add(15 * time.Second)
	for {
		var got sessionResp
		e.mustDo("GET", "/api/sessions/"+s.ID, nil, 200, &got)
		if _, err := os.Stat(target); err == nil && got.Status == "idle" && len(got.Messages) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first turn did not finish")
		}
		time.Sleep(50 * time.Millisecond)
	}

	dir := screenshotDir(t)
	ctx, cancel := newBrowser(t, 1100, 760)
	defer cancel()
	run := runner(t, ctx, dir, "rewind-failure", 45*time.Second)
	run("open the session",
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL+"/#"+s.ID),
		chromedp.WaitVisible(chromedp.CSS(`.msg.user .rewind[data-checkpoint="1"]`)),
	)
	// A prompt sent from the page gets its control from the live event.
	run("second prompt",
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), "and then?\r"),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"md")][contains(., "second answer")]`)),
		chromedp.WaitVisible(chromedp.CSS(`.msg.user .rewind[data-checkpoint="2"]`)),
		chromedp.WaitNotPresent(chromedp.CSS("body.busy")),
	)
	shot(t, ctx, dir, "rewind-01-controls")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)); err != nil {
		t.Fatal(err)
	}
	run("rewind to prompt 1",
		chromedp.Click(chromedp.CSS(`.rewind[data-checkpoint="1"] > summary`)),
		chromedp.WaitVisible(chromedp.CSS(`.rewind[data-checkpoint="1"] .rewind-both`)),
		chromedp.Click(chromedp.CSS(`.rewind[data-checkpoint="1"] .rewind-both`)),
		chromedp.WaitNotPresent(chromedp.CSS(".msg.user")),
		chromedp.WaitVisible(chromedp.CSS(".empty")),
	)
	shot(t, ctx, dir, "rewind-02-done")
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("notes.txt still there after rewinding code and conversation: %v", err)
	}
	prompt, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("prompt")))
	if err != nil || prompt != "write the notes" {
		t.Errorf("composer after the rewind: %q %v", prompt, err)
	}
}
