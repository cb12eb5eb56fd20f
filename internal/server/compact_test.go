package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// POST /api/sessions/{id}/compact runs "/compact <focus>": a
// compact_boundary event, a stored boundary, the context in the session.
func TestCompactEndpoint(t *testing.T) {
	script := scripted.Script{Steps: []scripted.Step{scripted.TextStep("first answer")}, Fallback: &scripted.Step{Text: "THE-SUMMARY"}}
	e := newEnv(t, script)
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	e.send(id, "hello there")
	until(t, ch, isType(event.Result))
	var r map[string]any
	e.mustDo("POST", "/api/sessions/"+id+"/compact", map[string]string{"focus": "the greeting"}, 202, &r)
	evs := until(t, ch, isType(event.Result))
	var boundary *event.Event
	for _, ev := range evs {
		if ev.Event.Type == event.CompactBoundary {
			boundary = &ev.Event
		}
	}
	if boundary == nil || boundary.Trigger != "manual" || boundary.TokensBefore == 0 {
		t.Fatalf("compact_boundary: %+v", boundary)
	}
	if res := evs[len(evs)-1].Event; res.Subtype != event.SubtypeSuccess || !strings.Contains(res.Result, "Compacted") {
		t.Fatalf("result: %+v", res)
	}
	var s struct {
		sessionResp
		Context *struct{ Tokens, Window int64 } `json:"context"`
	}
	waitIdle(t, e, id, &s.sessionResp)
	e.mustDo("GET", "/api/sessions/"+id, nil, 200, &s)
	var last struct {
		Kind       string `json:"kind"`
		Compaction struct {
			Focus string `json:"focus"`
		} `json:"compaction"`
	}
	_ = json.Unmarshal(s.Messages[len(s.Messages)-1], &last)
	if last.Kind != "compaction" || last.Compaction.Focus != "the greeting" || s.Context == nil || s.Context.Tokens == 0 {
		t.Fatalf("stored: %s, context %+v", s.Messages[len(s.Messages)-1], s.Context)
	}
	if code, data := e.do("POST", "/api/sessions/"+id+"/compact", map[string]any{"focus": 3}); code != 400 {
		t.Errorf("bad body: %d %s", code, data)
	}
}
