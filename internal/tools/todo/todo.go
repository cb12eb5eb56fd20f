// Package todo is the TodoWrite tool: the agent's task list, kept in the
// session's tool state and announced as task_update events.
package todo

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed todowrite.md
var description string

// StateKey is the tool.State key holding the session's *List.
const StateKey = "todos"

// Limits that keep a runaway model from storing megabytes of todos.
const (
	maxTodos      = 200
	maxTodoLength = 2000
)

// Statuses a todo may have.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

const schema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The updated todo list",
      "items": {
        "type": "object",
        "properties": {
          "content": {"type": "string", "minLength": 1},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
          "activeForm": {"type": "string", "minLength": 1}
        },
        "required": ["content", "status", "activeForm"],
        "additionalProperties": false
      }
    }
  },
  "required": ["todos"],
  "additionalProperties": false
}`

// List is the session's current task list.
type List struct {
	mu    sync.Mutex
	todos []event.Todo
}

// Get returns a copy of the list.
func (l *List) Get() []event.Todo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event.Todo(nil), l.todos...)
}

func (l *List) set(ts []event.Todo) {
	l.mu.Lock()
	l.todos = append([]event.Todo(nil), ts...)
	l.mu.Unlock()
}

// ListFrom returns the session's list, creating it on first use.
func ListFrom(env *tool.Env) *List {
	return env.State.Load(StateKey, func() any { return &List{} }).(*List)
}

// TodoWrite is the TodoWrite tool.
type TodoWrite struct{}

// NewTodoWrite returns the TodoWrite tool.
func NewTodoWrite() *TodoWrite { return &TodoWrite{} }

func (*TodoWrite) Name() string            { return "TodoWrite" }
func (*TodoWrite) Description() string     { return description }
func (*TodoWrite) Schema() json.RawMessage { return json.RawMessage(schema) }

type input struct {
	Todos *[]event.Todo `json:"todos"`
}

func (*TodoWrite) Execute(_ context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil || call.Env.State == nil {
		return tool.Result{}, errors.New("TodoWrite: tool call without a session Env")
	}
	var in input
	if err := tool.DecodeInput("TodoWrite", call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if in.Todos == nil {
		return tool.ErrorResult(`invalid input for TodoWrite: the required parameter "todos" is missing; send the whole list as todos: [{content, status, activeForm}, ...]`), nil
	}
	todos := *in.Todos
	if msg := validate(todos); msg != "" {
		return tool.ErrorResult(msg), nil
	}
	ListFrom(call.Env).set(todos)
	call.Env.Emit(event.Event{Type: event.TaskUpdate, ToolUseID: call.ID, ToolName: "TodoWrite", Todos: append([]event.Todo(nil), todos...)})
	return tool.Result{Content: summary(todos), Meta: map[string]any{"todos": len(todos)}}, nil
}

func validate(todos []event.Todo) string {
	if len(todos) > maxTodos {
		return fmt.Sprintf("invalid input for TodoWrite: %d todos is more than the %d allowed; merge or drop some", len(todos), maxTodos)
	}
	for i, t := range todos {
		for _, f := range []struct{ name, v string }{{"content", t.Content}, {"activeForm", t.ActiveForm}} {
			switch {
			case strings.TrimSpace(f.v) == "":
				return fmt.Sprintf("invalid input for TodoWrite: todos[%d].%s is missing or empty", i, f.name)
			case len(f.v) > maxTodoLength:
				return fmt.Sprintf("invalid input for TodoWrite: todos[%d].%s is longer than %d characters; keep todos short", i, f.name, maxTodoLength)
			case strings.IndexByte(f.v, 0) >= 0:
				return fmt.Sprintf("invalid input for TodoWrite: todos[%d].%s contains a NUL byte", i, f.name)
			}
		}
		switch t.Status {
		case Pending, InProgress, Completed:
		default:
			return fmt.Sprintf("invalid input for TodoWrite: todos[%d].status is %q; use one of pending, in_progress, completed", i, t.Status)
		}
	}
	return ""
}

func summary(todos []event.Todo) string {
	if len(todos) == 0 {
		return "Todo list cleared."
	}
	counts := map[string]int{}
	var current []string
	for _, t := range todos {
		counts[t.Status]++
		if t.Status == InProgress {
			current = append(current, t.ActiveForm)
		}
	}
	s := fmt.Sprintf("Todos have been modified successfully: %d total (%d completed, %d in progress, %d pending).",
		len(todos), counts[Completed], counts[InProgress], counts[Pending])
	if len(current) > 0 {
		s += " Now: " + strings.Join(current, "; ") + "."
	}
	if len(current) > 1 {
		s += " Keep only one todo in_progress at a time."
	}
	return s + " Keep using the todo list to track your progress, and proceed with the current tasks if applicable."
}
