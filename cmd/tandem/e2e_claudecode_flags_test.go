package main

import (
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

const todoSchema = `{"type":"object","properties":{"done":{"type":"boolean"},"items":{"type":"array","items":{"type":"string"}}},"required":["done","items"]}`

// --json-schema under --runtime claude-code, in tandem's default
// permission mode: the CLI's StructuredOutput call runs without asking
// (it only records the answer), and the result carries structured_output
// as under the native runtime.
func TestE2EClaudeCodeJSONSchema(t *testing.T) {
	t.Parallel()
	x := newClaudeCodeE2E(t, func(string) scripted.Script {
		return scripted.Script{Steps: []scripted.Step{
			scripted.ToolStep(scripted.Call("StructuredOutput", map[string]any{"done": true, "items": []string{"a", "b"}})),
			scripted.TextStep("done"),
		}}
	})
	r := x.RunDetached(streamArgs("list", "--runtime", "claude-code", "--json-schema", todoSchema)...)
	mustSucceed(t, r)
	if got := string(r.Result().StructuredOutput); got != `{"done":true,"items":["a","b"]}` {
		t.Errorf("structured_output %s\nstdout:\n%s", got, r.Stdout)
	}
}
