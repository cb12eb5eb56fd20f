package server_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/session"
)

const turnMarker = "ANN-TURN-DONE"

// signInBrowser signs user in through the OpenID provider's own login
// page, as a person would, and waits for tandem's page.
func signInBrowser(t *testing.T, run func(string, ...chromedp.Action[chromedp.Void]), o *oidcEnv, user string) {
	t.Helper()
	run(user+": the login page offers sign-in with the organisation",
		chromedp.Navigate(o.ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#oidc a")),
		chromedp.Click(chromedp.CSS("#oidc a")),
	)
	run(user+": the provider's login form",
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), user),
		chromedp.SendKeys(chromedp.ID("password"), opPassword),
		chromedp.Click(chromedp.CSS("button[type=submit]")),
	)
	run(user+": back on tandem's page, signed in",
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.WaitVisible(chromedp.CSS("#session-list li")),
	)
}

// sessionCookie is the browser's tandem_token cookie ("" for none).
func sessionCookie(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	res, err := chromedp.Call(cctx, network.GetCookies, network.GetCookiesParams{URLs: []string{url}})
	if err != nil {
		t.Fatalf("read cookies: %v", err)
	}
	for _, c := range res.Cookies {
		if c.Name == "tandem_token" {
			if !c.HTTPOnly {
				t.Errorf("the sign-in cookie is readable by scripts")
			}
			return c.Value
		}
	}
	return ""
}

// fetchStatus is the status the page gets for a GET of path.
func fetchStatus(t *testing.T, ctx context.Context, path string) string {
	t.Helper()
	ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ectx, chromedp.Evaluate[string](`fetch(`+jsString(path)+`).then(r => String(r.status))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch %s in the page: %v", path, err)
	}
	return v
}

// TestBrowserTeamSignIn: in a real browser, ann signs in through the
// OpenID provider's login page, registers a folder, runs a turn there;
// bob signs in in another browser and neither sees ann's folder or
// session listed nor reads it through the API; ann signs out: the cookie
// is gone from the browser and the value it held is refused.
func TestBrowserTeamSignIn(t *testing.T) {
	chromium(t)
	o := newOIDCEnv(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("Hello from the scripted model. " + turnMarker)}})
	project := filepath.Join(o.dir, "annproject")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := screenshotDir(t)

	annCtx, cancelAnn := newBrowser(t, 1280, 860)
	defer cancelAnn()
	ann := runner(t, annCtx, dir, "ann-failure", 30*time.Second)
	signInBrowser(t, ann, o, "ann")
	ann("register a folder",
		chromedp.SendKeys(chromedp.ID("workspace-path"), project+"\r"),
		chromedp.WaitReady(chromedp.Search(`//select[@id="workspace-select"]/option[contains(., "`+project+`")]`)),
		chromedp.WaitEnabled(chromedp.ID("new-session")),
	)
	if got := evalString(t, annCtx, `document.getElementById('workspace-select').value`); got != project {
		t.Fatalf("the selected workspace is %q, want %q", got, project)
	}
	ann("run a turn",
		chromedp.Click(chromedp.ID("new-session")),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), "Say hello\r"),
		chromedp.WaitVisible(chromedp.Search(`//div[contains(@class,"msg assistant")][contains(., "`+turnMarker+`")]`)),
		chromedp.WaitNotPresent(chromedp.CSS("body.busy")),
	)
	shot(t, annCtx, dir, "team-01-ann-turn")
	annSessions, err := o.stack.Manager.List(context.Background(), sessionsIn(project))
	if err != nil || len(annSessions) != 1 {
		t.Fatalf("sessions in %s: %+v %v", project, annSessions, err)
	}
	sid := annSessions[0].ID
	if got := fetchStatus(t, annCtx, "/api/sessions/"+sid); got != "200" {
		t.Fatalf("ann reads her own session: %s", got)
	}

	bobCtx, cancelBob := newBrowser(t, 1280, 860)
	defer cancelBob()
	bob := runner(t, bobCtx, dir, "bob-failure", 30*time.Second)
	signInBrowser(t, bob, o, "bob")
	shot(t, bobCtx, dir, "team-02-bob")
	if n := evalString(t, bobCtx, `String(document.querySelectorAll('#session-list .session-item').length)`); n != "0" {
		t.Errorf("bob's page lists %s sessions, want none", n)
	}
	if opts := evalString(t, bobCtx, `document.getElementById('workspace-select').textContent`); strings.Contains(opts, project) || strings.Contains(opts, o.ws) {
		t.Errorf("bob's page offers folders he is no member of: %q", opts)
	}
	for _, path := range []string{"/api/sessions/" + sid, "/api/sessions/" + sid + "/usage", "/api/sessions/" + sid + "/events",
		"/api/sessions/" + sid + "/checkpoints"} {
		if got := fetchStatus(t, bobCtx, path); got != "403" && got != "404" {
			t.Errorf("bob's page reads %s: %s, want 403 or 404", path, got)
		}
	}
	if got := fetchStatus(t, bobCtx, "/api/sessions"); got != "200" {
		t.Errorf("bob lists sessions: %s", got)
	}
	if got, err := chromedp.Run(bobCtx, chromedp.Evaluate[string](`fetch('/api/sessions').then(r => r.text())`, chromedp.EvalAwaitPromise)); err != nil || strings.Contains(got, sid) {
		t.Errorf("bob's session list holds ann's: %s %v", got, err)
	}

	// Sign-out: the cookie leaves the browser and its value is refused.
	cookie := sessionCookie(t, annCtx, o.ts.URL)
	if cookie == "" {
		t.Fatal("ann's browser holds no sign-in cookie")
	}
	ann("sign out",
		chromedp.Click(chromedp.ID("logout")),
		chromedp.WaitVisible(chromedp.CSS("#oidc a")),
	)
	shot(t, annCtx, dir, "team-03-signed-out")
	if c := sessionCookie(t, annCtx, o.ts.URL); c != "" {
		t.Errorf("after sign-out the browser still holds the cookie %q", c)
	}
	if got := fetchStatus(t, annCtx, "/api/me"); got != "401" {
		t.Errorf("ann's page after sign-out: /api/me %s", got)
	}
	req, _ := http.NewRequest("GET", o.ts.URL+"/api/sessions/"+sid, nil)
	req.AddCookie(&http.Cookie{Name: "tandem_token", Value: cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("the signed-out cookie's value still reads the session: %d", resp.StatusCode)
	}
	if got := fetchStatus(t, bobCtx, "/api/me"); got != "200" {
		t.Errorf("ann's sign-out ended bob's: %s", got)
	}
}

func sessionsIn(cwd string) session.ListOptions { return session.ListOptions{Cwd: cwd} }
