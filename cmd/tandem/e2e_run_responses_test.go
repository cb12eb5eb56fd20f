package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// The openai preset sends a Responses-only model (gpt-5-pro) through the
// Responses API: a tool step with reasoning, throttled once (retried with a
// retry event), then the answer, priced from the catalog. The reasoning
// goes back encrypted, before the call it led to, with the call's output.
func TestE2ERunOpenAIResponses(t *testing.T) {
	t.Parallel()
	thinking := "The user wants a.txt; read it first."
	tool := scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "a.txt"})).
		WithThinking(thinking).WithFault(scripted.StatusFault(429, 1))
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{tool, scripted.TextStep("a.txt says hello.")}})
	x.WriteFile("a.txt", "hello\n")
	r := x.RunStream("read a.txt", "--model", "openai/gpt-5-pro")
	mustSucceed(t, r)
	res := r.Result()
	if res.Result != "a.txt says hello." || res.CostUSD == nil || *res.CostUSD <= 0 {
		t.Errorf("result %+v", res)
	}
	if n := len(eventsOf(r, event.Retry)); n != 1 {
		t.Errorf("%d retry events, want 1", n)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for _, q := range reqs {
		if q.API != scripted.APIResponses || q.Path != "/v1/responses" || q.Model() != "gpt-5-pro" ||
			q.Header.Get("Authorization") != "Bearer test-key" || !q.Stream() {
			t.Errorf("request %s %s api=%s model=%s auth=%q", q.Method, q.Path, q.API, q.Model(), q.Header.Get("Authorization"))
		}
	}
	var last struct {
		Store   bool              `json:"store"`
		Include []string          `json:"include"`
		Input   []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(reqs[2].RawBody, &last); err != nil {
		t.Fatal(err)
	}
	var types []string
	var reasoning struct {
		EncryptedContent string `json:"encrypted_content"`
		Summary          []struct {
			Text string `json:"text"`
		} `json:"summary"`
	}
	output := ""
	for _, it := range last.Input {
		var head struct {
			Type   string `json:"type"`
			Role   string `json:"role"`
			Output string `json:"output"`
		}
		_ = json.Unmarshal(it, &head)
		types = append(types, head.Type+"/"+head.Role)
		switch head.Type {
		case "reasoning":
			_ = json.Unmarshal(it, &reasoning)
		case "function_call_output":
			output = head.Output
		}
	}
	if got := strings.Join(types, " "); got != "message/user reasoning/ function_call/ function_call_output/" {
		t.Errorf("input items %s", got)
	}
	if reasoning.EncryptedContent != scripted.Signature(thinking) || len(reasoning.Summary) != 1 || reasoning.Summary[0].Text != thinking {
		t.Errorf("reasoning sent back: %+v", reasoning)
	}
	if last.Store || strings.Join(last.Include, ",") != "reasoning.encrypted_content" || !strings.Contains(output, "hello") {
		t.Errorf("last request: %s", reqs[2].RawBody)
	}
}
