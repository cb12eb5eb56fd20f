package permission

import (
	"context"
	"encoding/json"
	"testing"
)

// What the filter offers and what the engine's deny rule allows agree for
// every form of entry.
func TestToolFilterAgreesWithDenyRules(t *testing.T) {
	tools := []string{"Bash", "Read", "Glob", "Edit", "Write", "mcp__gh__issue", "mcp__gh__pr", "mcp__other__x", "WebFetch"}
	for _, entry := range []string{"Bash", "mcp__gh", "mcp__gh__*", "mcp__gh__issue", "Edit", "Read", "Web*", "*"} {
		f := NewToolFilter(nil, []string{entry}).WithTools(builtinFiles)
		rules, err := ParseToolFlags([]string{entry}, ActionDeny)
		if err != nil {
			t.Fatal(err)
		}
		e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: t.TempDir(), Mode: Trust, FlagRules: rules})
		for _, tool := range tools {
			d, err := e.Check(context.Background(), Request{Tool: tool, Input: json.RawMessage(`{"command":"ls","file_path":"x","pattern":"*","url":"https://example.com"}`)})
			if err != nil {
				t.Fatal(err)
			}
			if denied := d.Behavior == Deny; denied == f.Offered(tool) {
				t.Errorf("--disallowedTools %s: %s offered=%v but engine denied=%v (%s)", entry, tool, f.Offered(tool), denied, d.Message)
			}
		}
	}
	// A pattern is a permission rule: the tool stays.
	if !NewToolFilter(nil, []string{"Bash(rm:*)"}).Offered("Bash") {
		t.Error("Bash(rm:*) must leave Bash offered")
	}
	f := NewToolFilter([]string{"Read,Bash(git:*)"}, []string{"mcp__gh Bash(rm:*)"}).WithTools(builtinFiles)
	if !f.Offered("Bash") || !f.Offered("Read") || f.Offered("Edit") || f.Disallowed() != "mcp__gh,Bash(rm:*)" {
		t.Errorf("split entries: %+v %q", f, f.Disallowed())
	}
}
