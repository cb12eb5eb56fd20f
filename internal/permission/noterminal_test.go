package permission

import (
	"os/exec"
	"strings"
	"testing"
)

// The no-terminal denial suggests an --allowedTools value for the call that
// was denied, and that value (after the shell removes its quotes) approves
// exactly that call.
func TestNoTerminalSuggestsTheDeniedCall(t *testing.T) {
	cases := []struct {
		tool string
		in   map[string]string
		want string // the flag value the message must contain
	}{
		{"Bash", map[string]string{"command": "make test"}, "Bash(make test:*)"},
		{"Bash", map[string]string{"command": "rm -rf build"}, "Bash(rm -rf build)"},
		{"Bash", map[string]string{"command": "bash -c 'echo it'"}, "Bash(bash -c 'echo it')"},
		{"Bash", map[string]string{"command": "npm install && cargo build"}, "Bash(npm install:*),Bash(cargo build:*)"},
		{"Bash", map[string]string{"command": "ls | xargs rm"}, "Bash(ls | xargs rm)"},
	}
	for _, c := range cases {
		work := t.TempDir()
		e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work})
		d := check(t, e, c.tool, c.in)
		if d.Behavior != Deny || strings.Contains(d.Message, "make test") && !strings.Contains(c.in["command"], "make test") {
			t.Errorf("%v: %+v", c.in, d)
			continue
		}
		value := flagValue(t, d.Message)
		if value != c.want {
			t.Errorf("%v: suggested %q, want %q (message %q)", c.in, value, c.want, d.Message)
			continue
		}
		rules, err := ParseToolFlags([]string{value}, ActionAllow)
		if err != nil {
			t.Fatalf("%s: %v", value, err)
		}
		again := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, FlagRules: rules})
		if d := check(t, again, c.tool, c.in); d.Behavior != Allow {
			t.Errorf("%v: with --allowedTools %s still %+v", c.in, value, d)
		}
	}
	// A command no flag value can carry gets no --allowedTools advice.
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: t.TempDir()})
	d := check(t, e, "Bash", map[string]string{"command": "ls\nxargs rm"})
	if d.Behavior != Deny || strings.Contains(d.Message, "--allowedTools") || !strings.Contains(d.Message, ".tandem/config.json") {
		t.Errorf("multi-line: %+v", d)
	}
}

// flagValue runs the shell on the suggested flag to get the value the user
// would actually pass.
func flagValue(t *testing.T, msg string) string {
	t.Helper()
	i := strings.Index(msg, "--allowedTools ")
	if i < 0 {
		t.Fatalf("no --allowedTools in %q", msg)
	}
	rest := msg[i+len("--allowedTools "):]
	j := strings.Index(rest, ", or add a rule")
	if j < 0 {
		t.Fatalf("cannot find the end of the flag in %q", msg)
	}
	out, err := exec.Command("bash", "-c", "printf %s "+rest[:j]).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
