package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

const todoSchema = `{"type":"object","properties":{"done":{"type":"boolean"},"items":{"type":"array","items":{"type":"string"}}},"required":["done","items"]}`

// --json-schema: the first answer does not conform, the repair does; the
// result carries structured_output. The drop-in's flag does the same.
func TestE2ERunJSONSchema(t *testing.T) {
	t.Parallel()
	script := scripted.Script{Steps: []scripted.Step{
		scripted.TextStep(`{"done":"yes","items":[]}`),
		scripted.TextStep(`{"done":true,"items":["a","b"]}`),
	}}
	x := newE2E(t, script)
	r := x.RunStream("list", "--json-schema", todoSchema)
	mustSucceed(t, r)
	if got := string(r.Result().StructuredOutput); got != `{"done":true,"items":["a","b"]}` {
		t.Errorf("structured_output %s", got)
	}
	reqs := x.srv.MainRequests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].RawBody), `\"items\"`) || !strings.Contains(string(reqs[1].RawBody), "not accepted") {
		t.Errorf("%d requests; schema or repair missing", len(reqs))
	}

	x.srv.Reset()
	d := x.Run("-p", "list", "--output-format", "json", "--model", "anthropic/claude-sonnet-5-5", "--json-schema", todoSchema)
	if d.Code != 0 || !strings.Contains(d.Stdout, `"structured_output":{"done":true,"items":["a","b"]}`) {
		t.Errorf("drop-in: exit %d\n%s\n%s", d.Code, d.Stdout, d.Stderr)
	}
	// Claude Sonnet 4.5's catalog entry takes output_config.format: the
	// schema goes natively too, on the repair as well.
	dreqs := x.srv.MainRequests()
	if len(dreqs) != 2 {
		t.Errorf("drop-in: %d requests, want answer and repair", len(dreqs))
	}
	for i, r := range dreqs {
		oc, _ := r.Body["output_config"].(map[string]any)
		if f, _ := oc["format"].(map[string]any); f["type"] != "json_schema" || f["schema"] == nil {
			t.Errorf("drop-in request %d: no output_config.format: %s", i, r.RawBody)
		}
	}

	bad := x.RunStream("list", "--json-schema", `{"minimum":"x"}`)
	if bad.Code == 0 || !strings.Contains(bad.Stderr, "--json-schema") {
		t.Errorf("a bad schema was accepted: exit %d\n%s", bad.Code, bad.Stderr)
	}
}
