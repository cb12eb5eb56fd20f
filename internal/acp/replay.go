package acp

import (
	"context"
	"encoding/json"
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// replay sends a stored conversation to the client as the updates it would
// have seen live: user and agent messages, thoughts, and each tool call
// with its result, a sub-agent's calls after the call that started it.
func (ag *Agent) replay(ctx context.Context, s *liveSession) error {
	rec := s.live.Info()
	msgs, err := s.live.History(ctx)
	if err != nil {
		return fmt.Errorf("load session %s: %w", rec.ID, err)
	}
	runs, err := s.live.SubagentHistory(ctx, msgs)
	if err != nil {
		return fmt.Errorf("load session %s: %w", rec.ID, err)
	}
	r := replayer{up: &updater{ag: ag, turns: newTurnState()}, send: func(u acpsdk.SessionUpdate) error {
		return ag.conn.SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: acpsdk.SessionId(rec.ID), Update: u})
	}}
	if err := r.messages(msgs, runs, false); err != nil {
		return fmt.Errorf("replay session %s: %w", rec.ID, err)
	}
	// The plan is the last TodoWrite's list.
	if r.lastTodos != nil {
		var in struct {
			Todos []event.Todo `json:"todos"`
		}
		if json.Unmarshal(r.lastTodos, &in) == nil {
			return r.send(plan(in.Todos))
		}
	}
	return nil
}

// replayImageMax bounds an image's base64 data replayed as it was sent.
const replayImageMax = 8 << 20

type replayer struct {
	up        *updater
	send      func(acpsdk.SessionUpdate) error
	lastTodos json.RawMessage
}

// messages sends msgs' updates; a sub-agent's (nested) are only its tool
// calls, as live, where its words reach the client as the call's result.
func (r *replayer) messages(msgs []message.Message, runs []session.SubagentRun, nested bool) error {
	subs := make(map[string]session.SubagentRun, len(runs))
	for _, run := range runs {
		subs[run.Session.ParentToolUseID] = run
	}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == message.ToolUse && b.Name == "TodoWrite" && !nested {
				r.lastTodos = b.Input
			}
			var us []acpsdk.SessionUpdate
			switch {
			case nested && b.Type != message.ToolUse && b.Type != message.ToolResult:
			case b.Type == message.Text && m.Role == message.User:
				us = textUpdates(b.Text, acpsdk.UpdateUserMessageText)
			case b.Type == message.Image && m.Role == message.User && len(b.ImageData) > replayImageMax:
				// An image cannot be sent in parts; a client on the ACP Go
				// SDK could not read it whole.
				us = textUpdates(fmt.Sprintf("[an image of %d bytes (base64), too large to replay]", len(b.ImageData)), acpsdk.UpdateUserMessageText)
			case b.Type == message.Image && m.Role == message.User:
				us = []acpsdk.SessionUpdate{acpsdk.UpdateUserMessage(acpsdk.ImageBlock(b.ImageData, b.MediaType))}
			case b.Type == message.Text:
				us = textUpdates(b.Text, acpsdk.UpdateAgentMessageText)
			case b.Type == message.Thinking && b.Text != "":
				us = textUpdates(b.Text, acpsdk.UpdateAgentThoughtText)
			case b.Type == message.ToolUse:
				us = []acpsdk.SessionUpdate{r.up.toolStart(event.Event{ToolUseID: b.ID, ToolName: b.Name, Input: b.Input})}
			case b.Type == message.ToolResult:
				us = []acpsdk.SessionUpdate{r.up.toolResult(event.Event{ToolUseID: b.ToolUseID, IsError: b.IsError, Output: resultText(b)})}
			}
			for _, u := range us {
				if err := r.send(u); err != nil {
					return err
				}
			}
			if run, started := subs[b.ID]; started && b.Type == message.ToolUse {
				if err := r.messages(run.Messages, run.Subagents, true); err != nil {
					return err
				}
			}
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
