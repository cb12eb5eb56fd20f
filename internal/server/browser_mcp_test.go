package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// mcpPageJS: each server row's name, state and buttons, and whether the
// panel is unfolded.
const mcpPageJS = `(() => {
  const d = document.getElementById('mcp-panel');
  const rows = [...d.querySelectorAll('.mcp-server')].map((r) => r.dataset.name + ':' + r.dataset.state + ':' +
    [...r.querySelectorAll('button')].map((b) => b.dataset.action).join('+'));
  return (d.hidden ? 'hidden' : d.open ? 'open' : 'folded') + ' | ' + rows.join(', ');
})()`

// The sidebar's MCP panel over a real MCP server: /mcp unfolds it, and
// its buttons disable and enable the server, the row following.
func TestBrowserMCPPanel(t *testing.T) {
	chromium(t)
	e := newEnv(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}}, withEverything(t))
	id := e.newSession()
	ctx, _ := openAndSend(t, e, id, "/mcp")
	waitPage(t, ctx, mcpPageJS, "open | ev:connected:reconnect+disable")
	click := func(action string) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, chromedp.Click(chromedp.CSS(`.mcp-server[data-name="ev"] button[data-action="`+action+`"]`))); err != nil {
			t.Fatalf("click %s: %v\n%s", action, err, pageState(ctx))
		}
	}
	click("disable")
	waitPage(t, ctx, mcpPageJS, "open | ev:disabled:enable")
	click("enable")
	waitPage(t, ctx, mcpPageJS, "open | ev:connected:reconnect+disable")
	shot(t, ctx, screenshotDir(t), "mcp-panel")
}
