package permission

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// Explain names the rule (and its source) or the mode that decides a
// call, as Check would decide it, and asks nobody.
func TestExplain(t *testing.T) {
	work := t.TempDir()
	asked := false
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: work, Asker: AskerFunc(func(context.Context, Question) (Answer, error) {
		asked = true
		return Answer{Decision: AllowOnce}, nil
	}),
		UserRules:    []Rule{{Permission: "Bash", Pattern: "git push:*", Action: ActionDeny, Source: "user ~/.tandem/config.json"}},
		ProjectRules: []Rule{{Permission: "Bash", Pattern: "npm install:*", Action: ActionAllow}},
	})
	bash := func(cmd string) Request {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return Request{Tool: "Bash", Input: in}
	}
	cases := []struct {
		req        Request
		action     Action
		rule, why  string
		suggestion string
	}{
		{bash("git push origin main"), ActionDeny, "Bash(git push:*)", "(user ~/.tandem/config.json)", ""},
		{bash("npm install left-pad"), ActionAllow, "Bash(npm install:*)", "", ""},
		{bash("ls -la"), ActionAllow, "read-only", "", ""},
		{bash("rm -rf build"), ActionAsk, "mode:normal", "", "Bash(rm -rf build)"},
	}
	for _, c := range cases {
		x := e.Explain(c.req)
		if x.Action != c.action || (c.rule != "" && x.Rule != c.rule) || !strings.Contains(x.Reason, c.why) {
			t.Errorf("%s: %+v", c.req.Input, x)
		}
		var sugg []string
		for _, r := range x.Suggestion {
			sugg = append(sugg, r.String())
		}
		if got := strings.Join(sugg, ","); got != c.suggestion {
			t.Errorf("%s: suggestion %q, want %q", c.req.Input, got, c.suggestion)
		}
	}
	e.SetMode(Explore)
	if x := e.Explain(bash("rm -rf build")); x.Action != ActionDeny || x.Rule != "mode:explore" || x.Mode != Explore {
		t.Errorf("explore: %+v", x)
	}
	if asked {
		t.Error("Explain asked")
	}
}
