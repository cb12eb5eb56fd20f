package permission

import (
	"context"
	"testing"
)

// Explore mode runs an MCP tool only when it declares readOnlyHint (the MCP
// layer sets Request.ReadOnly from it).
func TestExploreAllowsOnlyReadOnlyMCPTools(t *testing.T) {
	work := t.TempDir()
	e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: Explore, WorkDir: work})
	for _, c := range []struct {
		readOnly bool
		want     Behavior
	}{{true, Allow}, {false, Deny}} {
		d, err := e.Check(context.Background(), Request{Tool: "mcp__docs__search", Input: []byte(`{}`), ReadOnly: c.readOnly})
		if err != nil {
			t.Fatal(err)
		}
		if d.Behavior != c.want {
			t.Errorf("readOnly=%v: got %s (%s), want %s", c.readOnly, d.Behavior, d.Message, c.want)
		}
	}
}
