package permission

import (
	"fmt"
	"strings"
)

// NoTerminalMessage explains a call denied because nobody could be asked.
// allowFlag is the value for --allowedTools that would approve exactly this
// call ("" when no flag value can say it, e.g. a multi-line command).
func NoTerminalMessage(summary, allowFlag string) string {
	flag := ""
	if allowFlag != "" {
		flag = " --allowedTools " + shellQuote(allowFlag) + ","
	}
	return fmt.Sprintf("%s needs approval, and there is no terminal to ask: rerun with --permission-mode trust,%s or add a rule to .tandem/config.json", summary, flag)
}

// noTerminalAllow builds the --allowedTools value for the denied call: the
// rules "allow always" would save when there are any, otherwise a rule for
// the exact command (Bash) or the tool. It returns "" when the value would
// not parse back into a rule approving this call.
func noTerminalAllow(tool string, in toolInput, suggested []Rule) string {
	if len(suggested) > 0 {
		names := make([]string, len(suggested))
		for i, r := range suggested {
			names[i] = r.String()
		}
		return strings.Join(names, ",")
	}
	if tool != "Bash" {
		return tool
	}
	cmd := strings.TrimSpace(in.Command)
	if cmd == "" || strings.ContainsAny(cmd, "\n\r") {
		return ""
	}
	flag := "Bash(" + cmd + ")"
	rules, err := ParseToolFlags([]string{flag}, ActionAllow)
	if err != nil || len(rules) != 1 || rules[0].Permission != "Bash" || rules[0].Pattern != cmd {
		return ""
	}
	return flag
}

// shellQuote quotes s for a POSIX shell command line.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
