package permission

import (
	"fmt"
	"strings"
)

// approvers names what would approve exactly this call without anyone
// being asked, each checked by judging the call again with it: an
// --allowedTools value (the rules "allow always" would save, else a rule
// for the exact command or the tool), and --permission-mode trust when
// that is not already the mode. A protected path gets neither, since no
// rule and no mode approves a write there unasked.
type approvers struct {
	flag  string // --allowedTools value; "" when none approves the call
	rule  bool   // a rule for the exact call approves it, but no flag value can carry it
	trust bool   // --permission-mode trust approves it
}

func (e *Engine) approvers(mode Mode, req Request, in toolInput, suggested []Rule) approvers {
	var a approvers
	if flag, rules := allowCandidate(req.Tool, in, suggested); len(rules) > 0 && e.approvedWith(mode, req, rules) {
		if flag != "" {
			a.flag = flag
		} else {
			a.rule = true
		}
	}
	a.trust = mode != Trust && e.approvedWith(Trust, req, nil)
	return a
}

// approvedWith judges req in mode with extra flag rules, by rules and mode
// alone (no hooks, nobody asked).
func (e *Engine) approvedWith(mode Mode, req Request, extra []Rule) bool {
	opts := e.opts
	e.mu.Lock()
	opts.FlagRules = append(append(append([]Rule(nil), e.opts.FlagRules...), e.session...), extra...)
	e.mu.Unlock()
	opts.Mode, opts.Hooks, opts.Asker = mode, nil, nil
	return NewEngine(opts).judge(mode, req).action == ActionAllow
}

// message says what approves the call, for a denial that could not ask.
func (a approvers) message() string {
	var ways []string
	if a.flag != "" {
		ways = append(ways, "rerun with --allowedTools "+shellQuote(a.flag)+", or add a rule to .tandem/config.json saying the same")
	}
	if a.rule {
		ways = append(ways, "add a rule naming this exact command to .tandem/config.json")
	}
	if a.trust {
		ways = append(ways, "--permission-mode trust would run it")
	}
	if len(ways) == 0 {
		return "no rule or mode approves it unasked: run it where someone can answer (a terminal, or a client that answers permission requests)"
	}
	return strings.Join(ways, "; ")
}

// NoTerminalMessage explains a call denied because nobody could be asked.
func NoTerminalMessage(summary string, a approvers) string {
	return fmt.Sprintf("%s needs approval, and there is no terminal to ask: %s", summary, a.message())
}

// allowCandidate is the --allowedTools value and rules to try for the
// denied call: the rules "allow always" would save when there are any,
// otherwise a rule for the exact command (Bash) or the tool. flag is ""
// when the rules cannot be written as one flag value that parses back to
// them (a multi-line command).
func allowCandidate(tool string, in toolInput, suggested []Rule) (flag string, rules []Rule) {
	if len(suggested) > 0 {
		names := make([]string, len(suggested))
		for i, r := range suggested {
			names[i] = r.String()
		}
		return strings.Join(names, ","), suggested
	}
	if tool != "Bash" {
		return tool, []Rule{{Permission: tool, Action: ActionAllow}}
	}
	cmd := strings.TrimSpace(in.Command)
	if cmd == "" {
		return "", nil
	}
	exact := []Rule{{Permission: "Bash", Pattern: cmd, Action: ActionAllow}}
	if strings.ContainsAny(cmd, "\n\r") {
		return "", exact
	}
	flag = "Bash(" + cmd + ")"
	parsed, err := ParseToolFlags([]string{flag}, ActionAllow)
	if err != nil || len(parsed) != 1 || parsed[0].Permission != "Bash" || parsed[0].Pattern != cmd {
		return "", exact
	}
	return flag, parsed
}

// shellQuote quotes s for a POSIX shell command line.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
