package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
)

// agentCardJS describes what the page shows: each Agent card's status and,
// in order, what its sub-agent section holds; the last assistant text;
// whether a turn runs.
const agentCardJS = `(() => {
  const name = (c) => c.querySelector(':scope > summary .tool-name').textContent;
  const status = (c) => c.querySelector(':scope > summary .tool-status').textContent;
  const agents = [...document.querySelectorAll('#log .turn-body > .tool-card')].filter((c) => name(c) === 'Agent');
  const parts = [];
  for (const agent of agents) {
    parts.push('Agent:' + status(agent));
    for (const n of agent.querySelector(':scope > .tool-body > .tool-children').children) {
      if (n.classList.contains('tool-card')) parts.push('card:' + name(n) + ':' + status(n));
      else if (n.classList.contains('sub-text')) parts.push('text:' + n.textContent);
      else parts.push(n.className + ':' + n.textContent);
    }
  }
  if (!agents.length) parts.push('no Agent card');
  const md = [...document.querySelectorAll('#log .msg.assistant > .turn-body > .md')].map((n) => n.textContent.trim());
  parts.push('final:' + (md.length ? md[md.length - 1] : ''));
  parts.push(document.body.classList.contains('busy') ? 'busy' : 'idle');
  return parts.join(' | ');
})()`

// nestedDone is the finished turn of nestedScript as the page shows it.
const nestedDone = "Agent:done | label:Sub-agent | card:Glob:done | text:CHILD-REPORT nothing here | final:Parent done. | idle"

// waitPage polls the page until js gives want (60 s, whatever the load),
// failing with what it gave last and the log.
func waitPage(t *testing.T, ctx context.Context, js, want string) {
	t.Helper()
	var got string
	deadline := time.Now().Add(60 * time.Second)
	for {
		ectx, cancel := context.WithTimeout(ctx, 10*time.Second)
		v, err := chromedp.Run(ectx, chromedp.Evaluate[string](js))
		cancel()
		if err == nil {
			got = v
			if got == want {
				return
			}
		}
		if time.Now().After(deadline) {
			log, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("log").innerHTML`))
			t.Fatalf("page shows %q, want %q (last error %v)\nlog:\n%s", got, want, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// logText is everything the conversation holds, folded cards included.
func logText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("log").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// markAndReload sets window.oldPage on the page and reloads it, up to the
// new page's prompt being enabled; a test reads the marker to tell the
// old page from the new one.
func markAndReload(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.oldPage = true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Reload(),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
	); err != nil {
		t.Fatalf("reload: %v", err)
	}
}

// reloadPage reloads and waits until the new page's history shows want:
// a marker set on the old page tells the pages apart.
func reloadPage(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	markAndReload(t, sctx)
	waitPage(t, ctx, `(window.oldPage ? 'old page | ' : '') + `+agentCardJS, want)
}

// openAndSend opens session id in a fresh logged-in browser, sends prompt
// and runs then; it returns the browser's context and one bounded to
// 120 s for the test's own steps (both cancelled with the test).
func openAndSend(t *testing.T, e *env, id, prompt string, then ...chromedp.Action[chromedp.Void]) (ctx, sctx context.Context) {
	t.Helper()
	ctx, cancel := newBrowser(t, 1000, 800)
	t.Cleanup(cancel)
	sctx, cancelS := context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(cancelS)
	actions := append([]chromedp.Action[chromedp.Void]{
		chromedp.Navigate(e.ts.URL + "/login#token=" + testToken),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.Navigate(e.ts.URL + "/?open#" + id),
		chromedp.WaitEnabled(chromedp.ID("prompt")),
		chromedp.SendKeys(chromedp.ID("prompt"), prompt+"\r"),
	}, then...)
	if err := chromedp.Do(sctx, actions...); err != nil {
		t.Fatalf("open %s and send %q: %v\n%s", id, prompt, err, pageState(ctx))
	}
	return ctx, sctx
}

// pageStateJS is what a failed step reports of the page: enough to tell
// a message never sent from a stream that stopped.
const pageStateJS = `JSON.stringify({url: location.href, session: window.tandem?.state.session?.id, status: window.tandem?.state.session?.status,
  lastSeq: window.tandem?.state.lastSeq, running: window.tandem?.state.running, stream: window.tandem?.state.es?.readyState,
  permQueue: window.tandem?.state.permQueue.length, prompt: document.getElementById('prompt').value,
  requests: performance.getEntriesByType('resource').map((r) => r.name.replace(location.origin, '') + ' ' + (r.responseStatus || '')),
  log: document.getElementById('log').textContent.slice(-2000)})`

// pageState describes the page for a failure message; it gives up after
// a few seconds (the page may be what is stuck).
func pageState(ctx context.Context) string {
	ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ectx, chromedp.Evaluate[string](pageStateJS))
	if err != nil {
		return "page state: " + err.Error()
	}
	return "page state: " + s
}

// nestedAcross runs a sub-agent turn in the page, then reloads it (after
// restarting the server over the same database when restart is set): the
// Agent card shows the child's steps exactly as they were shown live.
func nestedAcross(t *testing.T, restart bool) {
	chromium(t)
	e := newEnv(t, nestedScript())
	id := e.newSession()
	ctx, _ := openAndSend(t, e, id, "look around")
	waitPage(t, ctx, agentCardJS, nestedDone)
	live := logText(t, ctx)
	if restart {
		e.restart()
	}
	reloadPage(t, ctx, nestedDone)
	if got := logText(t, ctx); got != live {
		t.Errorf("after the reload the conversation reads\n%q\nlive it read\n%q", got, live)
	}
	shot(t, ctx, screenshotDir(t), "subagent-reloaded")
}

func TestBrowserNestedSubagentAfterReload(t *testing.T) { nestedAcross(t, false) }

func TestBrowserNestedSubagentAfterRestart(t *testing.T) { nestedAcross(t, true) }

// A reload while a later turn's sub-agent waits for permission: the
// finished turn's sub-agent comes from the stored history, the running one
// from the replayed events, each once; both end as they would have live.
func TestBrowserNestedSubagentReloadMidTurn(t *testing.T) {
	chromium(t)
	script := nestedScript()
	script.Steps = append(script.Steps,
		scripted.ToolStep(scripted.CallID("a2", "Agent", map[string]any{"description": "write", "prompt": "CHILD-WRITE: write a file"})),
		scripted.TextStep("Second done."))
	script.Threads = append(script.Threads, scripted.Thread{Match: "CHILD-WRITE", Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("w2", "Write", map[string]any{"file_path": "out.txt", "content": "x\n"})),
		scripted.TextStep("WRITE-REPORT done"),
	}})
	e := newEnv(t, script, func(_ *server.Options, c *servertest.Config) { c.AskTools = []string{"Write"} })
	id := e.newSession()
	e.send(id, "look around")
	e.waitIdle(id, 4)
	ctx, sctx := openAndSend(t, e, id, "now write", chromedp.WaitVisible(chromedp.CSS("#perm-dialog[open] #perm-once")))
	first := "Agent:done | label:Sub-agent | card:Glob:done | text:CHILD-REPORT nothing here"
	waiting := first + " | Agent:running | label:Sub-agent | card:Write:needs approval | final:Parent done. | busy"
	waitPage(t, ctx, agentCardJS, waiting)
	reloadPage(t, ctx, waiting)
	if err := chromedp.Do(sctx,
		chromedp.WaitEnabled(chromedp.CSS("#perm-dialog[open] #perm-once")),
		chromedp.Click(chromedp.ID("perm-once")),
	); err != nil {
		t.Fatal(err)
	}
	done := first + " | Agent:done | label:Sub-agent | card:Write:done | text:WRITE-REPORT done | final:Second done. | idle"
	waitPage(t, ctx, agentCardJS, done)
	live := logText(t, ctx)
	reloadPage(t, ctx, done)
	if got := logText(t, ctx); got != live {
		t.Errorf("after the reload the conversation reads\n%q\nlive it read\n%q", got, live)
	}
}
