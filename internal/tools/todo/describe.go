package todo

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// TodoWrite only records the model's plan (tool.Kinded, tool.Summarizer).
func (*TodoWrite) Kind() tool.Kind                { return tool.KindThink }
func (*TodoWrite) Summary(json.RawMessage) string { return "Update the plan" }

// Contained: the plan is the session's own; no file, nothing outside
// tandem changes (tool.Contained).
func (*TodoWrite) Contained() bool { return true }
