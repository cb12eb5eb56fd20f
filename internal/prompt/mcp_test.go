package prompt

import (
	"strings"
	"testing"
)

func TestMCPInstructionsEmpty(t *testing.T) {
	if got := MCPInstructions(nil); got != "" {
		t.Errorf("no servers: %q", got)
	}
	if got := MCPInstructions(map[string]string{"a": "  \n"}); got != "" {
		t.Errorf("blank instructions: %q", got)
	}
}

// Claude Code's wording, one part per server in name order, control
// characters escaped (a server could otherwise write to the terminal of
// whoever prints the prompt, or hide text from the user).
func TestMCPInstructionsWording(t *testing.T) {
	got := MCPInstructions(map[string]string{"zeta": "Z rules", "alpha": "A rules\n\x1b[2Jcleared\u202e"})
	want := "# MCP Server Instructions\n\nThe following MCP servers have provided instructions for how to use their tools and resources:\n\n" +
		"## alpha\nA rules\n\\x1b[2Jcleared\\u202e\n\n## zeta\nZ rules"
	if got != want {
		t.Errorf("got:\n%q\nwant:\n%q", got, want)
	}
	if strings.Contains(got, "[cut short]") {
		t.Error("nothing was cut")
	}
}

// One server's text is capped, and all of them together.
func TestMCPInstructionsBudget(t *testing.T) {
	long := strings.Repeat("é", MCPInstructionsPerServer) // 2 bytes each: cut on a character boundary
	got := MCPInstructions(map[string]string{"big": long + "TAIL"})
	if strings.Contains(got, "TAIL") || !strings.Contains(got, "é\n[cut short]") || !strings.Contains(got, "To save room, some are cut") {
		t.Errorf("one server over its cap:\n%.300s…", got)
	}
	if !strings.HasSuffix(got, "[cut short]") || len(got) > MCPInstructionsPerServer+400 {
		t.Errorf("length %d", len(got))
	}
	servers := map[string]string{}
	for _, n := range []string{"s1", "s2", "s3", "s4", "s5"} {
		servers[n] = strings.Repeat("x", MCPInstructionsPerServer-10) + n
	}
	got = MCPInstructions(servers)
	if len(got) > MCPInstructionsTotal+1000 {
		t.Errorf("total %d bytes, cap %d", len(got), MCPInstructionsTotal)
	}
	if !strings.Contains(got, "xs1") || !strings.Contains(got, "xs3") || strings.Contains(got, "xs4") || !strings.Contains(got, "## s5\n[cut short]") {
		t.Errorf("the total cap keeps whole servers first and says which were cut:\n%s", strings.ReplaceAll(got, strings.Repeat("x", 100), "…"))
	}
}

// The builder puts them after the environment, before appended text, and
// asks at every build (a server may connect mid-session).
func TestSectionsMCP(t *testing.T) {
	calls := 0
	b := Builder{MCP: func() map[string]string { calls++; return map[string]string{"gh": "use gh"} }}
	secs := b.Sections(Request{Cwd: t.TempDir(), Model: "claude-sonnet-5-5", Append: "APPENDED"})
	var names []string
	for _, s := range secs {
		names = append(names, s.Name)
	}
	joined := strings.Join(names, ",")
	if !strings.HasSuffix(joined, "environment,mcp instructions,appended") || calls != 1 {
		t.Errorf("sections %s (MCP asked %d times)", joined, calls)
	}
	b.MCP = func() map[string]string { return nil }
	if secs := b.Sections(Request{Cwd: t.TempDir(), Model: "claude-sonnet-5-5"}); secs[len(secs)-1].Name != "environment" {
		t.Errorf("no servers: last section %s", secs[len(secs)-1].Name)
	}
}
