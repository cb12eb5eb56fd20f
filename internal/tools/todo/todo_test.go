package todo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/tool"
)

func TestTodoWrite(t *testing.T) {
	cases := []struct {
		name   string
		input  string
		errHas string
		has    string
		count  int
	}{
		{name: "valid list", input: `{"todos":[{"content":"Run tests","status":"in_progress","activeForm":"Running tests"},{"content":"Fix bug","status":"pending","activeForm":"Fixing bug"},{"content":"Read code","status":"completed","activeForm":"Reading code"}]}`,
			has: "3 total (1 completed, 1 in progress, 1 pending). Now: Running tests.", count: 3},
		{name: "clear", input: `{"todos":[]}`, has: "cleared", count: 0},
		{name: "bad status", input: `{"todos":[{"content":"a","status":"done","activeForm":"b"}]}`, errHas: `todos[0].status is "done"`},
		{name: "missing activeForm", input: `{"todos":[{"content":"a","status":"pending"}]}`, errHas: "todos[0].activeForm is missing"},
		{name: "empty content", input: `{"todos":[{"content":" ","status":"pending","activeForm":"x"}]}`, errHas: "todos[0].content is missing"},
		{name: "missing todos", input: `{}`, errHas: `"todos" is missing`},
		{name: "todos not array", input: `{"todos":"write code"}`, errHas: `field "todos" must be an array`},
		{name: "status wrong type", input: `{"todos":[{"content":"a","status":1,"activeForm":"b"}]}`, errHas: "must be a string"},
		{name: "NUL", input: `{"todos":[{"content":"a\u0000","status":"pending","activeForm":"b"}]}`, errHas: "NUL"},
		{name: "huge content", input: `{"todos":[{"content":"` + strings.Repeat("x", 3000) + `","status":"pending","activeForm":"b"}]}`, errHas: "longer than"},
		{name: "two in progress warned", input: `{"todos":[{"content":"a","status":"in_progress","activeForm":"A"},{"content":"b","status":"in_progress","activeForm":"B"}]}`, has: "only one todo in_progress", count: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := tool.NewEnv("s", t.TempDir(), nil, "")
			var got []event.Event
			env.Emit = func(e event.Event) { got = append(got, e) }
			res, err := NewTodoWrite().Execute(context.Background(), tool.Call{ID: "tu1", Input: json.RawMessage(tc.input), Env: env})
			if err != nil {
				t.Fatal(err)
			}
			if tc.errHas != "" {
				if !res.IsError || !strings.Contains(res.Content, tc.errHas) {
					t.Fatalf("want error %q, got %+v", tc.errHas, res)
				}
				if len(got) != 0 || len(ListFrom(env).Get()) != 0 {
					t.Fatal("invalid input changed state or emitted")
				}
				return
			}
			if res.IsError || !strings.Contains(res.Content, tc.has) {
				t.Fatalf("result %q lacks %q", res.Content, tc.has)
			}
			if len(got) != 1 || got[0].Type != event.TaskUpdate || len(got[0].Todos) != tc.count || got[0].ToolUseID != "tu1" {
				t.Fatalf("events: %+v", got)
			}
			if l := ListFrom(env).Get(); len(l) != tc.count {
				t.Fatalf("stored %d todos, want %d", len(l), tc.count)
			}
		})
	}
}

func TestTodoWriteReplacesList(t *testing.T) {
	env := tool.NewEnv("s", t.TempDir(), nil, "")
	tw := NewTodoWrite()
	for _, in := range []string{
		`{"todos":[{"content":"a","status":"pending","activeForm":"A"},{"content":"b","status":"pending","activeForm":"B"}]}`,
		`{"todos":[{"content":"a","status":"completed","activeForm":"A"}]}`,
	} {
		if res, err := tw.Execute(context.Background(), tool.Call{Input: json.RawMessage(in), Env: env}); err != nil || res.IsError {
			t.Fatal(err, res.Content)
		}
	}
	l := ListFrom(env).Get()
	if len(l) != 1 || l[0].Status != Completed {
		t.Fatalf("list %+v", l)
	}
	var schema map[string]any
	if err := json.Unmarshal(tw.Schema(), &schema); err != nil || tw.Description() == "" || tw.Name() != "TodoWrite" {
		t.Fatal("bad schema or description", err)
	}
}
