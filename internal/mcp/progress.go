package mcp

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

// progressRoutes sends a server's progress notifications to the tool call
// that asked for them, as tool_output events the UI can show.
type progressRoutes struct {
	mu     sync.Mutex
	next   int64
	routes map[string]func(event.Event)
}

// open registers a call and returns its progress token and a release func.
func (p *progressRoutes) open(call tool.Call, toolName string) (string, func()) {
	if call.Env == nil || call.Env.Emit == nil {
		return "", func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.routes == nil {
		p.routes = map[string]func(event.Event){}
	}
	p.next++
	token := "tandem-" + strconv.FormatInt(p.next, 10)
	emit := call.Env.Emit
	p.routes[token] = func(e event.Event) {
		e.ToolUseID, e.ToolName = call.ID, toolName
		emit(e)
	}
	return token, func() {
		p.mu.Lock()
		delete(p.routes, token)
		p.mu.Unlock()
	}
}

// deliver forwards one notification; unknown tokens are dropped.
func (p *progressRoutes) deliver(token any, progress, total float64, msg string) {
	key := fmt.Sprint(token)
	p.mu.Lock()
	emit := p.routes[key]
	p.mu.Unlock()
	if emit == nil {
		return
	}
	line := "progress " + strconv.FormatFloat(progress, 'f', -1, 64)
	if total > 0 {
		line += "/" + strconv.FormatFloat(total, 'f', -1, 64)
	}
	if msg != "" {
		line += ": " + msg
	}
	emit(event.Event{Type: event.ToolOutput, Output: line + "\n", Stream: "stdout", Meta: map[string]any{"mcp_progress": progress, "mcp_total": total}})
}
