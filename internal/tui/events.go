package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
)

// contextEvent is the event that reports the context window in use (sent
// by runtimes that track it; absent ones leave the status line without it).
const contextEvent event.Type = "context"

// apply folds one event into the model.
func (m *model) apply(e event.Event) {
	e = clean(e)
	if parent := parentToolUseID(e); parent != "" && m.applySub(e, parent) {
		return
	}
	tr := m.tr
	switch e.Type {
	case event.Text:
		if tr.openText == nil {
			tr.openThinking = closeStream(tr.openThinking)
			tr.openText = tr.add(&item{kind: kindAssistant, streaming: true})
		}
		tr.openText.text += e.Text
		tr.openText.touch()
	case event.Thinking:
		if e.Text == "" {
			return // the signature at the end of a block
		}
		if tr.openThinking == nil {
			tr.openThinking = tr.add(&item{kind: kindThinking, streaming: true})
		}
		tr.openThinking.text += e.Text
		tr.openThinking.touch()
	case event.ToolUse, event.ToolOutput, event.ToolResult, event.ToolTimeout:
		m.applyTool(e)
	case event.PermissionRequest:
		m.perms = append(m.perms, e)
		if len(m.perms) == 1 {
			m.dlgSince = m.now()
		}
		if it, c := m.card(e.ToolUseID); c != nil {
			c.waiting = true
			it.touch()
		}
	case event.PermissionReply:
		m.dropPermission(e.RequestID)
		if it, c := m.card(e.ToolUseID); c != nil {
			c.waiting = false
			it.touch()
		}
		if e.Decision == "deny" {
			if it, c := m.card(e.ToolUseID); c != nil {
				c.state, c.note = toolDenied, "denied"+suffix(": ", e.Message)
				it.touch()
			}
		}
	case event.Status:
		m.info.Model = firstNonEmpty(e.Model, m.info.Model)
		m.info.Runtime = firstNonEmpty(e.Runtime, m.info.Runtime)
		m.info.Mode = firstNonEmpty(e.Mode, m.info.Mode)
		if e.Message != "" {
			tr.notice(levelInfo, e.Message)
		}
	case event.ModeChanged:
		m.info.Mode = e.Mode
	case event.Error:
		tr.notice(levelError, firstNonEmpty(e.Error, e.Message, "error"))
	case event.SandboxDenial:
		tr.notice(levelWarn, denialNote(e.Message, e.Meta))
	case event.BackgroundTask:
		m.applyTask(e.Task)
	case event.Retry:
		msg := fmt.Sprintf("retrying in %s (attempt %d)", (time.Duration(e.DelayMS) * time.Millisecond).Round(100*time.Millisecond), e.Attempt)
		if e.Error != "" {
			msg += ": " + e.Error
		}
		tr.notice(levelWarn, msg)
	case event.TaskUpdate:
		it := &item{kind: kindTodo}
		for _, td := range e.Todos {
			it.todos = append(it.todos, todoLine{status: td.Status, content: td.Content})
		}
		tr.add(it)
	case event.Result:
		tr.endStreams()
		m.finishCards()
		switch {
		case e.Subtype == event.SubtypeInterrupted:
			tr.notice(levelWarn, "Interrupted: what was done so far is kept.")
		case e.Subtype == event.SubtypeMaxTurns:
			tr.notice(levelWarn, "Stopped: the turn reached its step limit (--max-turns or max_turns in the config). Send a message to go on.")
		case e.Subtype == event.SubtypeMaxBudget:
			tr.notice(levelWarn, "Stopped: "+e.Error+". Send a message to go on with a fresh budget.")
		case e.IsError:
			tr.notice(levelError, firstNonEmpty(e.Error, e.Result, e.Subtype))
		}
	case contextEvent:
		if used, limit, ok := contextUsage(e); ok {
			m.ctxUsed, m.ctxLimit = used, limit
		}
	}
}

// applyTool updates the tool cards: a call starts (nested under its
// parent's card for a sub-agent), streams output, ends, times out.
func (m *model) applyTool(e event.Event) {
	tr := m.tr
	switch e.Type {
	case event.ToolUse:
		tr.endStreams()
		c := &toolCard{id: e.ToolUseID, name: e.ToolName, input: e.Input, started: e.Time}
		it := &item{kind: kindTool, tool: c}
		if p := tr.byTool[parentToolUseID(e)]; p != nil && p.tool != nil {
			c.parent = p.tool
			p.tool.children = append(p.tool.children, c)
			p.touch()
			tr.byTool[e.ToolUseID] = p // updates to the child redraw the parent's card
		} else {
			tr.add(it)
			tr.byTool[e.ToolUseID] = it
		}
	case event.ToolOutput:
		if it, c := m.card(e.ToolUseID); c != nil {
			c.addOutput(e.Output)
			it.touch()
		}
	case event.ToolResult:
		if it, c := m.card(e.ToolUseID); c != nil {
			c.output, c.diff = e.Output, e.Diff
			if c.state == toolRunning {
				c.state = toolDone
				if e.IsError {
					c.state = toolFailed
				}
			}
			if !e.Time.IsZero() && !c.started.IsZero() {
				c.elapsed = e.Time.Sub(c.started)
			}
			it.touch()
		}
	case event.ToolTimeout:
		if it, c := m.card(e.ToolUseID); c != nil {
			c.note = fmt.Sprintf("stopped after %s (time limit)", time.Duration(e.TimeoutMS)*time.Millisecond)
			it.touch()
		}
	}
}

func closeStream(it *item) *item {
	if it != nil {
		it.streaming = false
		it.touch()
	}
	return nil
}

// card finds the tool card of a call (nested ones included).
func (m *model) card(id string) (*item, *toolCard) {
	it := m.tr.byTool[id]
	if it == nil || it.tool == nil {
		return nil, nil
	}
	if it.tool.id == id {
		return it, it.tool
	}
	var find func(c *toolCard) *toolCard
	find = func(c *toolCard) *toolCard {
		for _, ch := range c.children {
			if ch.id == id {
				return ch
			}
			if f := find(ch); f != nil {
				return f
			}
		}
		return nil
	}
	return it, find(it.tool)
}

// tickCards advances the running time shown on running calls' cards,
// redrawing a card only when its second changes.
func (m *model) tickCards() {
	if !m.busy {
		return
	}
	now := m.now()
	for i := len(m.tr.items) - 1; i >= 0 && i >= len(m.tr.items)-50; i-- {
		it := m.tr.items[i]
		if it.kind != kindTool || it.tool.state != toolRunning || it.tool.started.IsZero() {
			continue
		}
		if s := int(now.Sub(it.tool.started) / time.Second); s != it.tool.shownSecs {
			it.tool.shownSecs = s
			it.touch()
		}
	}
}

// finishCards marks calls still running at the end of a turn as
// interrupted (their results will not come).
func (m *model) finishCards() {
	for _, it := range m.tr.items {
		if it.kind == kindTool && markInterrupted(it.tool) {
			it.touch()
		}
	}
}

func markInterrupted(c *toolCard) bool {
	changed := false
	if c.state == toolRunning {
		c.state, changed = toolInterrupted, true
	}
	for _, ch := range c.children {
		changed = markInterrupted(ch) || changed
	}
	return changed
}

// applySub shows a sub-agent's event inside its parent's card: its text
// as the card's live tail, its turn end not as the session's. Tool calls
// (which nest as cards) and everything else take the usual path.
func (m *model) applySub(e event.Event, parent string) bool {
	it, c := m.card(parent)
	switch e.Type {
	case event.Text, event.Thinking:
		if c != nil && e.Text != "" {
			c.addOutput(e.Text)
			it.touch()
		}
		return true
	case event.Result, event.Done, event.Status, contextEvent:
		return true
	}
	return false
}

// parentToolUseID names the call (a sub-agent's Agent/Task) an event
// belongs under; "" for the main conversation.
func parentToolUseID(e event.Event) string {
	if e.ParentToolUseID != "" {
		return e.ParentToolUseID
	}
	if p, ok := e.Meta["parent_tool_use_id"].(string); ok {
		return p
	}
	return ""
}

// contextUsage reads the tokens in use and the window from a context event.
func contextUsage(e event.Event) (used, limit int64, ok bool) {
	return e.ContextTokens, e.ContextWindow, e.ContextWindow > 0
}

func suffix(sep, s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return sep + s
}

// clean strips terminal controls from the text an event carries: it comes
// from the model, tools and files, none of which may drive the terminal.
func clean(e event.Event) event.Event {
	for _, f := range []*string{&e.Text, &e.Output, &e.Diff, &e.Error, &e.Message, &e.Summary, &e.Suggestion, &e.Result} {
		*f = sanitize(*f, true)
	}
	for i := range e.Todos {
		e.Todos[i].Content = sanitize(e.Todos[i].Content, false)
	}
	if e.Task != nil {
		t := cleanTask(*e.Task)
		e.Task = &t
	}
	return e
}
