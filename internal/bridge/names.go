package bridge

import "strings"

// IsCommand reports whether name ("/new") is one of the chat's commands:
// those help lists (one a line, the name first), /start and /help. A
// platform whose users reach the bridge through one command of their own
// (Slack's /tandem) tells a command from a prompt with it.
func IsCommand(name string) bool {
	name = strings.ToLower(name)
	if len(name) < 2 || name[0] != '/' {
		return false
	}
	if name == "/start" || name == "/help" {
		return true
	}
	for _, line := range strings.Split(help, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return true
		}
	}
	return false
}
