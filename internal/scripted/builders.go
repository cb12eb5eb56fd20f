package scripted

import (
	"encoding/json"
	"strconv"
)

// TextStep is a step answering with plain text.
func TextStep(text string) Step { return Step{Text: text} }

// ToolStep is a step asking for one or more tool calls.
func ToolStep(calls ...ToolCall) Step { return Step{ToolCalls: calls} }

// ThinkingStep is a step with a thinking block followed by text.
func ThinkingStep(thinking, text string) Step { return Step{Thinking: thinking, Text: text} }

// Call is a tool call with the given input (anything JSON-encodable to an
// object; a map or struct). An input that cannot be encoded makes the
// script invalid, reported by Start or Validate.
func Call(name string, input any) ToolCall {
	if input == nil {
		return ToolCall{Name: name, Input: json.RawMessage(`{}`)}
	}
	raw, err := json.Marshal(input)
	if err != nil {
		raw, _ = json.Marshal("unencodable input: " + err.Error())
	}
	return ToolCall{Name: name, Input: raw}
}

// CallID is Call with a fixed tool-use id.
func CallID(id, name string, input any) ToolCall {
	c := Call(name, input)
	c.ID = id
	return c
}

// WithText returns a copy of the step with text added (e.g. text before tool
// calls).
func (s Step) WithText(text string) Step { s.Text = text; return s }

// WithThinking returns a copy of the step with a thinking block.
func (s Step) WithThinking(thinking string) Step { s.Thinking = thinking; return s }

// WithUsage returns a copy of the step reporting the given usage.
func (s Step) WithUsage(u Usage) Step { s.Usage = &u; return s }

// WithFault returns a copy of the step with the fault.
func (s Step) WithFault(f Fault) Step { s.Fault = &f; return s }

// WithStopReason returns a copy of the step with an explicit stop reason.
func (s Step) WithStopReason(r string) Step { s.StopReason = r; return s }

// StatusFault answers status (e.g. 429, 529, 500, 401) once, with an
// optional retry-after in seconds (0 for none).
func StatusFault(status int, retryAfterSeconds float64) Fault {
	f := Fault{Status: status}
	if retryAfterSeconds > 0 {
		f.RetryAfter = strconv.FormatFloat(retryAfterSeconds, 'f', -1, 64)
	}
	return f
}

// DropFault closes the connection after n body bytes (0: before any
// response) once.
func DropFault(n int) Fault { return Fault{DropAfterBytes: &n} }

// MidStreamFault cuts the stream with an error once.
func MidStreamFault() Fault { return Fault{MidStreamError: true} }
