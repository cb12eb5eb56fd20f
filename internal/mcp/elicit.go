package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tandem-agent/tandem/internal/permit"
)

// Elicitation is a server's question to the user (MCP elicitation/create):
// a form to fill or, in URL mode, a page to visit. Its shape, and the form
// it describes, are internal/permit's, which front ends decode.
type Elicitation = permit.ElicitRequest

// Elicitation answers.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitAnswer is the user's answer: Action is accept, decline or cancel;
// Content holds the form's values on accept (fields left out get the
// schema's defaults, as the spec has it).
type ElicitAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// ElicitFunc puts a question to whoever can answer it. A front end with no
// one to ask (headless) answers cancel.
type ElicitFunc func(ctx context.Context, q Elicitation) (ElicitAnswer, error)

// elicitHandler adapts an ElicitFunc to the SDK; the SDK validates the
// answer against the schema and fills in its defaults.
func (s *server) elicitHandler(f ElicitFunc) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		p := req.Params
		q := Elicitation{Server: s.name, Mode: p.Mode, Message: p.Message, URL: p.URL, ID: p.ElicitationID}
		if q.Mode == "" {
			q.Mode = "form"
			if p.URL != "" {
				q.Mode = "url"
			}
		}
		if p.RequestedSchema != nil {
			q.Schema, _ = json.Marshal(p.RequestedSchema)
		}
		a, err := f(ctx, q)
		if err != nil {
			return nil, err
		}
		switch a.Action {
		case ElicitAccept, ElicitDecline:
		default:
			a.Action = ElicitCancel
		}
		res := &sdk.ElicitResult{Action: a.Action}
		if a.Action == ElicitAccept && q.Mode == "form" {
			res.Content = a.Content
			if res.Content == nil {
				res.Content = map[string]any{}
			}
		}
		return res, nil
	}
}
