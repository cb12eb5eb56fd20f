package permission

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Explanation is how the engine judges a call by its mode and rules alone:
// no hook runs and nobody is asked. The terminal UI's /permissions shows
// it, so a user can see which rule decides a command before the agent
// runs it.
type Explanation struct {
	Mode   Mode
	Action Action // allow, deny or ask
	// Reason says why it denies or asks; Rule names the rule (with its
	// source) or the mode that decided.
	Reason, Rule string
	// Suggestion is what "allow always" would save, when it asks and may
	// offer that.
	Suggestion []Rule
}

// Explain judges req as Check would before hooks and asking.
func (e *Engine) Explain(req Request) Explanation {
	mode := e.Mode()
	v := e.judge(mode, req)
	if mode == Explore && v.action == ActionAsk && !v.exploreAsks {
		v = verdict{action: ActionDeny, rule: "mode:explore", reason: "explore mode is read-only and never asks: " + v.reason}
	}
	if v.rule == "" {
		v.rule = "mode:" + string(mode)
	}
	x := Explanation{Mode: mode, Action: v.action, Reason: v.reason, Rule: v.rule}
	if v.action == ActionAsk && !v.noAlways {
		x.Suggestion = v.suggest
	}
	return x
}

// callText is "Edit(src/main.go)" or "WebFetch(https://...)"; compiled on
// first use, as tandem's patterns are.
var callText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Z][A-Za-z]+)\((.*)\)$`) })

// CallFromText is the call a user names to have it explained: a shell
// command, or Tool(argument) for the file tools and WebFetch
// ("Edit(src/main.go)", "WebFetch(https://example.com)").
func CallFromText(what string) Request {
	req := Request{Tool: "Bash"}
	in := map[string]string{"command": what}
	if m := callText().FindStringSubmatch(what); m != nil {
		switch m[1] {
		case "Bash":
			in["command"] = m[2]
		case "WebFetch":
			req.Tool, in = m[1], map[string]string{"url": m[2]}
		default:
			// Every key a file tool's declaration (tool.FileAccessor) may
			// read its path from: the tool's own declaration then picks
			// its key, whatever its name.
			req.Tool, in = m[1], map[string]string{"file_path": m[2], "notebook_path": m[2], "path": m[2]}
		}
	}
	req.Input, _ = json.Marshal(in)
	return req
}

// Describe says in one or two lines how the call named what is judged.
func (x Explanation) Describe(what string) string {
	out := fmt.Sprintf("%s → %s (%s)", what, x.Action, x.Rule)
	if x.Reason != "" {
		out += ": " + x.Reason
	}
	if len(x.Suggestion) > 0 {
		s := make([]string, len(x.Suggestion))
		for i, r := range x.Suggestion {
			s[i] = r.String()
		}
		out += "\n\"allow always\" would save " + strings.Join(s, ", ")
	}
	return out
}

// DescribeRules lists rules by action, strongest first, with their sources.
func DescribeRules(mode Mode, rules []Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Mode: %s. Deny beats ask beats allow, whatever file a rule is in.", mode)
	for _, action := range []Action{ActionDeny, ActionAsk, ActionAllow} {
		var lines []string
		for _, r := range rules {
			if r.Action == action {
				lines = append(lines, "  "+r.String()+"  · "+cmp.Or(r.Source, "?"))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n%s:\n%s", action, strings.Join(lines, "\n"))
		}
	}
	if len(rules) == 0 {
		b.WriteString("\nNo rules: the mode decides (why COMMAND shows how).")
	}
	return b.String()
}
