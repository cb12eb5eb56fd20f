package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// dropJS drops a PNG (base64 %s) named dot.png on the composer as a file
// dragged from the desktop would arrive.
const dropJS = `(() => {
  const bin = atob(%q);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], 'dot.png', { type: 'image/png' }));
  document.getElementById('composer').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  return 'dropped';
})()`

// An image dropped on the composer is shown as a thumbnail, goes with the
// next message and reaches the model's request; the prompt's bubble shows
// it once the page reloads the stored conversation. Notifications: the
// button asks for permission, and once allowed a turn that ends while the
// page is not in focus shows a notification with the answer.
func TestBrowserImageDropAndNotification(t *testing.T) {
	chromium(t)
	model, url := testfiles.Scripted(t, scripted.Script{Fallback: &scripted.Step{Text: "A grey square."}})
	e := newEnv(t, scripted.Script{}, func(_ *server.Options, c *servertest.Config) { c.ModelURL = url })
	id := e.newSession()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 7, 3))); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString(buf.Bytes())

	dir := screenshotDir(t)
	ctx, cancel := newBrowser(t, 1100, 800)
	defer cancel()
	run := runner(t, ctx, dir, "attach-failure", 30*time.Second)
	run("open session",
		chromedp.Navigate(e.ts.URL+"/login#token="+testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL+"/?open#"+id),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
	)

	// Notifications: not asked yet, then allowed through the button.
	if got := evalString(t, ctx, `document.getElementById('notify-toggle').dataset.permission`); got != "default" {
		t.Fatalf("notification permission before asking: %q", got)
	}
	sctx, cancelS := context.WithTimeout(ctx, 10*time.Second)
	defer cancelS()
	if _, err := chromedp.CallBrowser(sctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: e.ts.URL}); err != nil {
		t.Fatalf("grant notifications: %v", err)
	}
	run("allow notifications", chromedp.Click(chromedp.ID("notify-toggle")))
	waitPage(t, ctx, `document.getElementById('notify-toggle').dataset.permission`, "granted")
	// Record notifications instead of showing them, and take the page out
	// of focus as a user switching to another window would.
	evalString(t, ctx, `(() => {
	  window.shown = [];
	  window.Notification = class { constructor(title, o) { window.shown.push(title + ': ' + o.body); } static get permission() { return 'granted'; } };
	  document.hasFocus = () => false;
	  return 'ok';
	})()`)

	if got := evalString(t, ctx, strings.Replace(dropJS, "%q", jsString(b64), 1)); got != "dropped" {
		t.Fatal(got)
	}
	run("thumbnail shown", chromedp.WaitVisible(chromedp.CSS("#attachments .attachment img")))
	shot(t, ctx, dir, "attach-01-dropped")
	typeInto(t, ctx, "What is in this picture?")
	waitPage(t, ctx, `(window.shown || []).join('|')`, "tandem: turn finished: A grey square.")
	if n := evalString(t, ctx, `String(document.querySelectorAll('#attachments .attachment').length)`); n != "0" {
		t.Errorf("%s thumbnails left after sending", n)
	}
	reqs := model.MainRequests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].RawBody), `"data":"`+b64+`","media_type":"image/png"`) {
		t.Fatalf("the dropped image did not reach the model (%d requests):\n%.2000s", len(reqs), firstBody(reqs))
	}
	reloadCtx, cancelR := context.WithTimeout(ctx, 30*time.Second)
	defer cancelR()
	markAndReload(t, reloadCtx)
	waitPage(t, ctx, `String(document.querySelectorAll('.msg.user .thumbs img').length)`, "1")
	shot(t, ctx, dir, "attach-02-reloaded")
}

func firstBody(reqs []scripted.Request) string {
	if len(reqs) == 0 {
		return ""
	}
	return string(reqs[0].RawBody)
}
