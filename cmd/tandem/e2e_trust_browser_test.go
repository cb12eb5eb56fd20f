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

// A session in a folder whose project files need trust starts without
// those settings, and the web UI shows a banner naming them with a Trust
// button; trusting there is stored (the next session has no banner) and
// applied (the next session's requests carry the project's header).
func TestE2EBrowserAsksToTrustFolder(t *testing.T) {
	t.Parallel()
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
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("answered")}})
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
	// An untrusted folder is never refused: the session opens without the
	// project's header, and a banner says so with a Trust button.
	step("start a session: it opens with the banner", chromedp.Click(chromedp.ID("new-session")), chromedp.WaitVisible(chromedp.ID("trust-banner")))
	poll("the session opens", `location.hash.length > 1`)
	bannerText, err := chromedp.Run(bctx, chromedp.Text(chromedp.ID("trust-banner")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"not trusted", "providers.anthropic.headers", ".tandem/config.json", "tandem trust " + x.Work} {
		if !strings.Contains(bannerText, want) {
			t.Errorf("the banner should name %q:\n%s", want, bannerText)
		}
	}
	if open, _ := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.getElementById('trust-dialog').open`)); open {
		t.Error("the refusal dialog opened for an untrusted folder")
	}
	// projectHeader counts the model requests that carried the project's header.
	projectHeader := func() (n int) {
		for _, r := range x.srv.Requests() {
			if r.Header.Get("X-Project-Header") == "v" {
				n++
			}
		}
		return n
	}
	step("a turn untrusted", chromedp.WaitEnabled(chromedp.ID("prompt")), chromedp.SendKeys(chromedp.ID("prompt"), "hello\r"),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"md")][contains(., "answered")]`)))
	if n := projectHeader(); n != 0 || len(x.srv.MainRequests()) == 0 {
		t.Errorf("untrusted, %d of %d requests carried the project's header", n, len(x.srv.MainRequests()))
	}
	step("trust from the banner", chromedp.Click(chromedp.ID("trust-banner-yes")))
	poll("the banner says it is trusted", `document.getElementById('trust-banner').textContent.includes('trusted now')`)
	if _, list := c.do("GET", "/api/trust", nil); !strings.Contains(strings.Join(anyStrings(list["folders"]), ","), x.Work) {
		t.Errorf("the folder was not stored as trusted: %v", list)
	}
	first, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`location.hash`))
	step("a second session", chromedp.Click(chromedp.ID("new-session")))
	poll("a second session opens without the banner", `location.hash !== `+jsString(first)+` && document.getElementById('trust-banner').hidden`)
	step("a turn trusted", chromedp.WaitEnabled(chromedp.ID("prompt")), chromedp.SendKeys(chromedp.ID("prompt"), "hello again\r"),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"md")][contains(., "answered")]`)))
	if projectHeader() == 0 {
		t.Error("trusted from the banner, the next session's requests lack the project's header")
	}
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
