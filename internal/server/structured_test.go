package server_test

import (
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// json_schema on a turn request: a non-conforming answer is repaired and
// the result event carries structured_output; a bad schema is a 400.
func TestTurnJSONSchema(t *testing.T) {
	e := newEnv(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep(`{"n":"three"}`), scripted.TextStep(`{"n":3}`),
	}})
	id := e.newSession()
	ch, stop := e.stream(id, "")
	defer stop()
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	e.mustDo("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "count", "json_schema": schema}, 202, nil)
	evs := until(t, ch, func(ev event.Event) bool { return ev.Type == event.Result })
	res := evs[len(evs)-1].Event
	if res.Subtype != event.SubtypeSuccess || string(res.StructuredOutput) != `{"n":3}` || res.NumTurns != 2 {
		t.Fatalf("result %+v structured %s", res, res.StructuredOutput)
	}
	code, data := e.do("POST", "/api/sessions/"+id+"/messages", map[string]any{"text": "x", "json_schema": map[string]any{"minimum": "x"}})
	if code != 400 || errCode(t, data) != "bad_json_schema" {
		t.Errorf("bad schema: %d %s", code, data)
	}
}
