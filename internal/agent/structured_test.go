package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/turn"
)

const citySchema = `{"type":"object","properties":{"city":{"type":"string"},"population":{"type":"integer"}},"required":["city","population"]}`

func TestStructuredOutputConforms(t *testing.T) {
	w := newFallbackWorld(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep(`{"city":"Lyon","population":522000}`)}}, scripted.Script{}, "")
	res, err := w.rt.RunTurn(context.Background(), turn.Input{Prompt: "biggest city", Model: "primary/m", JSONSchema: json.RawMessage(citySchema)}, w.deps)
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != event.SubtypeSuccess || string(res.StructuredOutput) != `{"city":"Lyon","population":522000}` {
		t.Fatalf("result %+v structured %s", res, res.StructuredOutput)
	}
	reqs := w.primary.MainRequests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].RawBody), `\"population\"`) {
		t.Errorf("the schema did not reach the model: %d requests", len(reqs))
	}
}

// A non-conforming answer gets one repair request naming the problem; the
// second answer conforms.
func TestStructuredOutputRepaired(t *testing.T) {
	w := newFallbackWorld(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep(`Sure! {"city":"Lyon"}`),
		scripted.TextStep("```json\n{\"city\":\"Lyon\",\"population\":522000}\n```"),
	}}, scripted.Script{}, "")
	res, _ := w.rt.RunTurn(context.Background(), turn.Input{Prompt: "biggest city", Model: "primary/m", JSONSchema: json.RawMessage(citySchema)}, w.deps)
	if res.Subtype != event.SubtypeSuccess || string(res.StructuredOutput) != `{"city":"Lyon","population":522000}` || res.NumTurns != 2 {
		t.Fatalf("result %+v structured %s", res, res.StructuredOutput)
	}
	reqs := w.primary.MainRequests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].RawBody), "was not accepted: the answer is not JSON") {
		t.Errorf("repair request missing or vague: %d requests", len(reqs))
	}
}

// Two bad answers end the turn with an error; no structured_output.
func TestStructuredOutputGivesUpAfterOneRepair(t *testing.T) {
	w := newFallbackWorld(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep(`{"city":"Lyon"}`), scripted.TextStep(`{"city":"Lyon","population":"many"}`), scripted.TextStep("never"),
	}}, scripted.Script{}, "")
	res, _ := w.rt.RunTurn(context.Background(), turn.Input{Prompt: "x", Model: "primary/m", JSONSchema: json.RawMessage(citySchema)}, w.deps)
	if res.Subtype != event.SubtypeError || !strings.Contains(res.Error, "structured output") || res.StructuredOutput != nil {
		t.Fatalf("result %+v", res)
	}
	if n := len(w.primary.MainRequests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
