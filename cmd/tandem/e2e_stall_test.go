package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A provider that stalls (no headers, then only keep-alive pings) fails the
// attempt after the configured timeouts; the loop retries with retry events
// and the turn succeeds. A 200 HTML page is reported as such, not retried.
func TestE2EStalledProviderIsRetried(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("Answered after two stalls.").WithFault(scripted.Fault{Stall: scripted.StallHeaders, Times: 1}),
	}})
	writeJSONFile(t, filepath.Join(x.Home, "config.json"), map[string]any{
		"providers": map[string]any{"anthropic": map[string]any{"first_byte_timeout": "400ms", "idle_timeout": "400ms"}},
	})
	r := x.RunStream("hello")
	mustSucceed(t, r)
	retries := eventsOf(r, event.Retry)
	if len(retries) != 1 || !strings.Contains(retries[0].Error, "no response within 400ms") {
		t.Fatalf("retries %+v", retries)
	}
}

func TestE2ENonSSEAnswerNotRetried(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("never").WithFault(scripted.Fault{Status: 200, ContentType: "text/html", BodyText: "<html><body>Captive portal: please sign in</body></html>", Always: true}),
	}})
	r := x.RunStream("hello")
	if r.Code == 0 {
		t.Fatalf("succeeded against an HTML page")
	}
	if n := len(eventsOf(r, event.Retry)); n != 0 {
		t.Errorf("%d retries of a permanent HTML answer", n)
	}
	if e := r.Result().Error; !strings.Contains(e, "text/html instead of an event stream") || !strings.Contains(e, "Captive portal") {
		t.Errorf("result error %q", e)
	}
}
