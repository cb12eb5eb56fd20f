package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/listing"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// chromium finds the browser or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser tests need Chromium: apt-get install -y chromium")
	return ""
}

func screenshotDir(t *testing.T) string {
	if d := os.Getenv("TANDEM_SCREENSHOTS"); d != "" {
		os.MkdirAll(d, 0o755)
		return d
	}
	return t.TempDir()
}

func newBrowser(t *testing.T, width, height int) (context.Context, context.CancelFunc) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	// Start the browser now, without a deadline: a deadline on the first
	// run would bound the browser's whole life. Steps get their own.
	if err := chromedp.Do(ctx); err != nil {
		cancelC()
		cancelA()
		t.Fatalf("start chromium: %v", err)
	}
	// Page errors and console output go to the test log.
	msgs := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			t.Logf("browser console: %s", m)
		}
	}()
	return ctx, func() { cancelC(); cancelA(); <-done }
}

// runner runs chromedp actions as one named step within timeout; a failed
// step saves a screenshot named failure in dir and ends the test.
func runner(t *testing.T, ctx context.Context, dir, failure string, timeout time.Duration) func(what string, actions ...chromedp.Action[chromedp.Void]) {
	return func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			shot(t, ctx, dir, failure)
			t.Fatalf("%s: %v", what, err)
		}
	}
}

func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", p)
}

const endMarker = "END-OF-TURN-MARKER"

// armWatchJS records, as the permission dialog first opens, where focus
// is and whether its answers are off (window.armedAtOpen).
const armWatchJS = `(() => {
  const d = document.getElementById('perm-dialog');
  const obs = new MutationObserver(() => {
    if (!d.open || window.armedAtOpen) return;
    const off = ['perm-once', 'perm-always', 'perm-deny'].every((id) => document.getElementById(id).disabled);
    window.armedAtOpen = 'focus:' + document.activeElement.id + ' off:' + off;
  });
  obs.observe(d, { attributes: true, attributeFilter: ['open'] });
  return 'watching';
})()`

func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ectx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func TestBrowserChatFlow(t *testing.T) {
	chromium(t)
	script := scripted.Script{Steps: []scripted.Step{
		scripted.ThinkingStep("The user wants a file; I will write it.", "I'll create **hello.txt** for you.").
			WithUsage(scripted.Usage{InputTokens: 1200, OutputTokens: 80}),
		scripted.Step{Text: "Done. The file `hello.txt` now says hello.\n\n" + strings.Repeat("- a streamed list item\n", 25) + "\n" + endMarker,
			Fault: &scripted.Fault{DelayBetweenChunksMS: 150, Always: true}}, // slow: the reload must land mid-turn even on a loaded machine
	}}
	script.Steps[0].ToolCalls = []scripted.ToolCall{scripted.Call("Write", map[string]string{"file_path": "hello.txt", "content": "hello from the browser test\n"})}
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.AskTools = []string{"Write"} })
	dir := screenshotDir(t)
	ctx, cancel := newBrowser(t, 1280, 860)
	defer cancel()

	run := runner(t, ctx, dir, "failure", 20*time.Second)
	// Log in through the login page.
	run("login",
		chromedp.Navigate(e.ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("token")),
	)
	shot(t, ctx, dir, "01-login")
	run("submit token",
		chromedp.SendKeys(chromedp.ID("token"), testToken),
		chromedp.Click(chromedp.CSS("#login-form button")),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.WaitEnabled(chromedp.ID("new-session")),
	)
	// New session in the registered workspace, then send with Enter.
	run("page ready", chromedp.WaitVisible(chromedp.CSS("#session-list li")))
	evalString(t, ctx, armWatchJS)
	run("new session",
		chromedp.Click(chromedp.ID("new-session")),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), "Please create hello.txt\r"),
		chromedp.WaitVisible(chromedp.CSS(".msg.user .bubble")),
		chromedp.WaitVisible(chromedp.CSS(".md strong")), // streamed markdown
	)
	// The permission dialog opens for the Write call; approve it.
	run("permission dialog",
		chromedp.WaitVisible(chromedp.CSS("#perm-dialog[open] #perm-once")),
	)
	summary := text(t, ctx, chromedp.ID("perm-summary"))
	if !strings.Contains(summary, "hello.txt") {
		t.Fatalf("permission summary %q", summary)
	}
	shot(t, ctx, dir, "02-permission")
	// As it opened, the dialog took no keys for an answer: the answers
	// were off and focus was on its title. Once armed, Enter allows once.
	if got := evalString(t, ctx, `window.armedAtOpen`); got != "focus:perm-title off:true" {
		t.Errorf("the dialog opened with %q, want focus on its title and the answers off", got)
	}
	run("approve with Enter",
		chromedp.WaitEnabled(chromedp.ID("perm-once")),
		chromedp.WaitReady(chromedp.CSS("#perm-once:focus")),
		chromedp.KeyEvent("\r"),
		chromedp.WaitNotPresent(chromedp.CSS("#perm-dialog[open]")))

	target := filepath.Join(e.ws, "hello.txt")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(target); err == nil && string(b) == "hello from the browser test\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("hello.txt was not written after approval")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Reload in the middle of the slow second step and watch it finish.
	run("mid-turn", chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"md")][contains(., "streamed list item")]`)))
	before := text(t, ctx, chromedp.CSS(".log"))
	if strings.Contains(before, endMarker) {
		t.Fatal("turn finished before the reload; slow the script down")
	}
	shot(t, ctx, dir, "03-streaming")
	run("reload",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(".tool-card")),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"md")][contains(., "`+endMarker+`")]`)),
		chromedp.WaitNotPresent(chromedp.CSS("body.busy")),
	)
	log := text(t, ctx, chromedp.CSS(".log"))
	for _, want := range []string{"Please create hello.txt", "I'll create hello.txt for you.", "The file hello.txt now says hello.", endMarker} {
		if n := strings.Count(log, want); n != 1 {
			t.Errorf("%q appears %d times after the reload:\n%s", want, n, log)
		}
	}
	if n := strings.Count(log, "a streamed list item"); n != 25 {
		t.Errorf("list items after reload: %d, want 25", n)
	}
	tokensIn, cost := text(t, ctx, chromedp.ID("tokens-in")), text(t, ctx, chromedp.ID("cost"))
	if tokensIn == "0" || cost == "0.0000" {
		t.Errorf("counters not updated: in=%s cost=%s", tokensIn, cost)
	}
	// Open the tool card with the keyboard-reachable summary to show the diff/result.
	run("open card", chromedp.Click(chromedp.CSS(".tool-card > summary")))
	shot(t, ctx, dir, "04-finished")

	// A narrow window still shows the composer.
	run("narrow", chromedp.EmulateViewport(390, 844), chromedp.WaitVisible(chromedp.ID("prompt")))
	shot(t, ctx, dir, "05-narrow")
}

func TestBrowserKeyboardInterrupt(t *testing.T) {
	chromium(t)
	// Slow enough (~15 s) that the turn is still running when Escape
	// arrives, however loaded the machine is.
	script := scripted.Script{Steps: []scripted.Step{slowText(500)}}
	e := newEnv(t, script)
	var s sessionResp
	e.mustDo("POST", "/api/sessions", map[string]string{"cwd": e.ws}, 201, &s)
	ctx, cancel := newBrowser(t, 1000, 700)
	defer cancel()
	sctx, cancelS := context.WithTimeout(ctx, 90*time.Second)
	defer cancelS()
	err := chromedp.Do(sctx,
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL+"/#"+s.ID),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), "go\r"),
		chromedp.WaitVisible(chromedp.CSS(".md")),
		chromedp.WaitEnabled(chromedp.ID("interrupt")),
		chromedp.KeyEvent("\x1b"), // Escape interrupts
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"notice")][contains(., "Interrupted")]`)),
		chromedp.WaitNotPresent(chromedp.CSS("body.busy")),
	)
	if err != nil {
		shot(t, ctx, screenshotDir(t), "interrupt-failure")
		t.Fatal(err)
	}
}

func text[S chromedp.Selectable](t *testing.T, ctx context.Context, sel S) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatalf("read text: %v", err)
	}
	return s
}

// The context meter shows the session's fill; the Compact button compacts
// and the boundary stays visible after a reload.
func TestBrowserCompactButton(t *testing.T) {
	chromium(t)
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("first answer")}, Fallback: &scripted.Step{Text: "BROWSER-SUMMARY"}}
	e := newEnv(t, script, func(o *server.Options, _ *servertest.Config) { o.Catalog = statusCatalog{} })
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "hello")
	until(t, ch, isType(event.Result))
	ctx, cancel := newBrowser(t, 1100, 760)
	defer cancel()
	sctx, cancelS := context.WithTimeout(ctx, 30*time.Second)
	defer cancelS()
	err := chromedp.Do(sctx,
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL+"/#"+id),
		chromedp.WaitVisible(chromedp.ID("ctx")),
		// The model picker marks a legacy model with its status.
		chromedp.WaitReady(chromedp.Search(`//select[@id="model-select"]/option[@value="anthropic/claude-opus-4-8"][.="anthropic/claude-opus-4-8 (legacy)"]`)),
		chromedp.WaitReady(chromedp.Search(`//select[@id="model-select"]/option[@value="anthropic/claude-sonnet-5-5"][.="anthropic/claude-sonnet-5-5"]`)),
		chromedp.WaitEnabled(chromedp.ID("compact")),
		chromedp.Click(chromedp.ID("compact")),
		chromedp.WaitVisible(chromedp.Search(`//details[contains(@class,"compaction")][contains(., "Conversation compacted (manual)")]`)),
		chromedp.WaitNotPresent(chromedp.CSS("body.busy")),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS("details.compaction")),
		chromedp.Click(chromedp.CSS("details.compaction > summary")),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"compaction-summary")][contains(., "BROWSER-SUMMARY")]`)),
	)
	if err != nil {
		shot(t, ctx, screenshotDir(t), "compact-failure")
		t.Fatal(err)
	}
}

// statusCatalog lists an active and a legacy model, as the application's
// catalog does.
type statusCatalog struct{}

func (statusCatalog) Providers() []listing.ProviderInfo { return nil }
func (statusCatalog) Models() []listing.ModelInfo {
	return []listing.ModelInfo{{ID: "anthropic/claude-sonnet-5-5", Provider: "anthropic", Default: true},
		{ID: "anthropic/claude-opus-4-8", Provider: "anthropic", Status: "legacy"}}
}
