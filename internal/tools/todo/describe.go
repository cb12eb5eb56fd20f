package todo

import (
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// TodoWrite only records the model's plan (tool.Kinded, tool.Summarizer).
func (*TodoWrite) Kind() tool.Kind                { return tool.KindThink }
func (*TodoWrite) Summary(json.RawMessage) string { return "Update the plan" }
