package skills

import (
	_ "embed"
	"strings"
)

// initPrompt is what /init asks the agent: an instructions file for the
// agents that work in the folder later (internal/prompt reads AGENTS.md
// and CLAUDE.md at the start of every session).
//
//go:embed init.md
var initPrompt string

// TurnBuiltins are the built-in commands that run as a turn of the session
// (the runtime compacts; ExpandBuiltin expands /init): a front end with no
// answer of its own for the others (an editor over ACP) offers these.
var TurnBuiltins = []Command{
	{Name: "compact", Description: "Summarise the conversation so far to free context", ArgumentHint: "[focus]", Kind: "builtin"},
	{Name: "init", Description: "Write (or improve) this folder's AGENTS.md for the agents that work here", ArgumentHint: "[focus]", Kind: "builtin"},
}

// ExpandBuiltin turns a built-in command that is a request to the agent
// ("/init [focus]") into its prompt, for every front end and runtime
// alike; ok is false for anything else. (/compact is the runtimes' own.)
func ExpandBuiltin(prompt string) (text string, ok bool) {
	name, args, isCmd := ParsePrompt(prompt)
	if !isCmd || name != "init" {
		return "", false
	}
	text = strings.TrimSpace(initPrompt)
	if args = strings.TrimSpace(args); args != "" {
		text += "\n\nPay particular attention to: " + args
	}
	return text, true
}
