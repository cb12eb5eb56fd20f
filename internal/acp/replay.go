package acp

import (
	"context"
	"encoding/json"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// replay sends a stored conversation to the client as the updates it would
// have seen live: user and agent messages, thoughts, and each tool call
// with its result.
func (ag *Agent) replay(ctx context.Context, s *liveSession) error {
	rec := s.live.Snapshot()
	msgs, err := ag.app.Store.Messages(ctx, rec.ID)
	if err != nil {
		return fmt.Errorf("load session %s: %w", rec.ID, err)
	}
	up := &updater{ag: ag, turns: newTurnState()}
	send := func(u acpsdk.SessionUpdate) error {
		return ag.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: acpsdk.SessionId(rec.ID), Update: u})
	}
	var lastTodos json.RawMessage
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == message.ToolUse && b.Name == "TodoWrite" {
				lastTodos = b.Input
			}
			var u acpsdk.SessionUpdate
			ok := true
			switch {
			case b.Type == message.Text && m.Role == message.User:
				u = acpsdk.UpdateUserMessageText(b.Text)
			case b.Type == message.Image && m.Role == message.User:
				u = acpsdk.UpdateUserMessage(acpsdk.ImageBlock(b.ImageData, b.MediaType))
			case b.Type == message.Text:
				u = acpsdk.UpdateAgentMessageText(b.Text)
			case b.Type == message.Thinking && b.Text != "":
				u = acpsdk.UpdateAgentThoughtText(b.Text)
			case b.Type == message.ToolUse:
				u = up.toolStart(event.Event{ToolUseID: b.ID, ToolName: b.Name, Input: b.Input})
			case b.Type == message.ToolResult:
				u = up.toolResult(event.Event{ToolUseID: b.ToolUseID, IsError: b.IsError, Output: resultText(b)})
			default:
				ok = false
			}
			if !ok {
				continue
			}
			if err := send(u); err != nil {
				return fmt.Errorf("replay session %s: %w", rec.ID, err)
			}
		}
	}
	// The plan is the last TodoWrite's list.
	if lastTodos != nil {
		var in struct {
			Todos []event.Todo `json:"todos"`
		}
		if json.Unmarshal(lastTodos, &in) == nil {
			return send(plan(in.Todos))
		}
	}
	return nil
}

func resultText(b message.Block) string {
	var s string
	for _, c := range b.Content {
		if c.Type == message.Text {
			s += c.Text
		}
	}
	return s
}
