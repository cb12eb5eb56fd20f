package server_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// ringPageJS describes the page for TestBrowserReloadPastRingFloor: how
// often it fetched the session, the skipped-events notes, the user
// bubbles, the tool cards, whether the stored first turn and the running
// turn's latest text show, the last assistant text and whether a turn
// runs.
const ringPageJS = `(() => {
  const id = location.hash.slice(1);
  const gets = performance.getEntriesByType('resource').filter((r) => new URL(r.name).pathname === '/api/sessions/' + id).length;
  const log = document.getElementById('log');
  const notes = [...log.querySelectorAll('.notice')].filter((n) => n.textContent.includes('events of the running turn were not kept')).length;
  const users = [...log.querySelectorAll('.msg.user .bubble')].map((n) => n.textContent).join(',');
  const cards = [...log.querySelectorAll('.tool-card')].map((c) => c.querySelector(':scope > summary .tool-name').textContent + ':' + c.querySelector(':scope > summary .tool-status').textContent).join(',');
  const md = [...log.querySelectorAll('.msg.assistant > .turn-body > .md')].map((n) => n.textContent.trim());
  return [(window.oldPage ? 'old page' : 'new page'), 'gets:' + gets, 'notes:' + notes, 'users:' + users, 'cards:' + cards,
    'first:' + log.textContent.includes('First done.'), 'tail:' + log.textContent.includes('END-OF-TEXT'),
    'final:' + (md.length ? md[md.length - 1] : ''), document.body.classList.contains('busy') ? 'busy' : 'idle'].join(' | ');
})()`

// A page reloaded in the middle of a turn whose first events the ring has
// dropped settles after fetching the session once (it used to reload over
// and over until the turn ended): the stored history, the running turn's
// prompt (from running_prompt: its event is gone), a note that some of
// the running turn was skipped, and the turn from the ring on, up to the
// Write waiting for approval. When the turn ends the page shows it whole
// from the stored messages.
func TestBrowserReloadPastRingFloor(t *testing.T) {
	chromium(t)
	e := ringFloorEnv(t)
	id := e.newSession()
	e.send(id, "first")
	e.waitIdle(id, 2)
	ctx, sctx := openAndSend(t, e, id, "second", chromedp.WaitVisible(chromedp.CSS("#perm-dialog[open] #perm-once")))
	markAndReload(t, sctx)
	// The running turn's text shows from where the ring starts: its end,
	// not its beginning.
	midJS := `(` + ringPageJS + `).replace(/final:([^|]*) \|/, (m, x) => 'final:' + (x.endsWith('END-OF-TEXT') && x.length < ` +
		strconv.Itoa(len(longTurnText)) + ` ? '(its tail)' : x) + ' |')`
	waitPage(t, ctx, midJS,
		"new page | gets:1 | notes:1 | users:first,second | cards:Write:needs approval | first:true | tail:true | final:(its tail) | busy")
	shot(t, ctx, screenshotDir(t), "ring-floor-reloaded")
	if err := chromedp.Do(sctx,
		chromedp.WaitEnabled(chromedp.CSS("#perm-dialog[open] #perm-once")),
		chromedp.Click(chromedp.ID("perm-once")),
	); err != nil {
		t.Fatal(err)
	}
	// gets is left out: the page may ask more than once while the
	// stored messages catch up with the turn's result.
	const doneJS = `(` + ringPageJS + `).replace(/ \| gets:\d+/, '')`
	waitPage(t, ctx, doneJS, "new page | notes:0 | users:first,second | cards:Write:done | first:true | tail:true | final:Second done. | idle")
}
