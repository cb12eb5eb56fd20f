package permission

import (
	"fmt"
	"strings"
)

// modeNames maps every accepted spelling (tandem's and Claude Code's) to
// a Mode.
var modeNames = map[string]Mode{
	"explore":           Explore,
	"plan":              Explore,
	"normal":            Normal,
	"default":           Normal,
	"":                  Normal,
	"trust":             Trust,
	"bypasspermissions": Trust,
	"acceptedits":       AcceptEdits,
	"dontask":           DontAsk,
	"askedits":          AskEdits,
}

// ParseMode reads a mode name: explore, normal, trust, or Claude Code's
// default, acceptEdits, plan, bypassPermissions, dontAsk.
func ParseMode(s string) (Mode, error) {
	m, ok := modeNames[strings.ToLower(strings.TrimSpace(s))]
	if !ok {
		return "", fmt.Errorf("unknown permission mode %q: use explore, normal or trust (Claude Code's default, acceptEdits, plan, bypassPermissions and dontAsk are accepted too)", s)
	}
	return m, nil
}
