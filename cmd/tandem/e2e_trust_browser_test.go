package main

import (
	"context"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// The web UI asks once before a session starts in a folder whose project
// files need trust; trusting there lets the session start, and the answer
// is stored (the next session does not ask).
func TestE2EBrowserAsksToTrustFolder(t *testing.T) {
	var browser string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("browser tests need Chromium: apt-get install -y chromium")
	}
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}})
	writeJSONFile(t, filepath.Join(x.Work, ".tandem", "config.json"), map[string]any{
		"providers": map[string]any{"anthropic": map[string]any{"headers": map[string]string{"X-Project-Header": "v"}}}})
	c := startServe(t, x)

	actx, cancelA := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 800))
	defer cancelA()
	bctx, cancelB := chromedp.NewContext(actx)
	defer cancelB()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	poll := func(what, expr string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(bctx, 20*time.Second)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	step("sign in", chromedp.Navigate(c.base+"/login#token="+url.QueryEscape(c.token)), chromedp.WaitVisible(chromedp.ID("new-session")))
	poll("the workspace is picked", `document.getElementById('workspace-select').value === `+jsString(x.Work))
	step("start a session: the trust prompt opens", chromedp.Click(chromedp.ID("new-session")), chromedp.WaitVisible(chromedp.CSS("#trust-dialog[open] #trust-yes")))
	dialogText, err := chromedp.Run(bctx, chromedp.Text(chromedp.ID("trust-dialog")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{x.Work, "providers.anthropic.headers", ".tandem/config.json"} {
		if !strings.Contains(dialogText, want) {
			t.Errorf("the prompt should name %q:\n%s", want, dialogText)
		}
	}
	step("decline: nothing starts", chromedp.Click(chromedp.ID("trust-no")), chromedp.WaitNotPresent(chromedp.CSS("#trust-dialog[open]")))
	poll("the refusal is shown", `document.querySelector('.log').textContent.includes('not trusted, so nothing was started')`)
	if _, list := c.do("GET", "/api/sessions", nil); len(list["sessions"].([]any)) != 0 {
		t.Fatalf("declining trust still created a session: %v", list)
	}
	step("ask again", chromedp.Click(chromedp.ID("new-session")), chromedp.WaitVisible(chromedp.CSS("#trust-dialog[open] #trust-yes")))
	step("trust", chromedp.Click(chromedp.ID("trust-yes")), chromedp.WaitNotPresent(chromedp.CSS("#trust-dialog[open]")))
	poll("the session opens", `location.hash.length > 1`)
	if _, list := c.do("GET", "/api/trust", nil); !strings.Contains(strings.Join(anyStrings(list["folders"]), ","), x.Work) {
		t.Errorf("the folder was not stored as trusted: %v", list)
	}
	first, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`location.hash`))
	step("a second session", chromedp.Click(chromedp.ID("new-session")))
	poll("a second session opens without asking", `location.hash !== `+jsString(first)+` && !document.getElementById('trust-dialog').open`)
	if _, list := c.do("GET", "/api/sessions", nil); len(list["sessions"].([]any)) != 2 {
		t.Errorf("want two sessions, got %v", list)
	}
}

func jsString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
