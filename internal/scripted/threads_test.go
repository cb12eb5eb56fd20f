package scripted

import "testing"

func TestThreadsSelectByFirstUserMessage(t *testing.T) {
	s := New(Script{
		Steps:   []Step{TextStep("main 0"), TextStep("main 1")},
		Threads: []Thread{{Match: "CHILD-A", Steps: []Step{TextStep("a 0"), TextStep("a 1")}}, {Match: "CHILD-B", Steps: []Step{TextStep("b 0")}}},
	})
	msgs := func(first string, assistants int) map[string]any {
		list := []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "<reminder>\n" + first}}}}
		for i := 0; i < assistants; i++ {
			list = append(list, map[string]any{"role": "assistant", "content": "x"}, map[string]any{"role": "user", "content": "y"})
		}
		return map[string]any{"messages": list, "tools": []any{map[string]any{"name": "Read"}}}
	}
	for _, c := range []struct {
		first string
		n     int
		want  string
	}{{"hello", 0, "main 0"}, {"hello", 1, "main 1"}, {"do CHILD-A now", 0, "a 0"}, {"do CHILD-A now", 1, "a 1"}, {"CHILD-B", 0, "b 0"}, {"CHILD-B", 1, defaultFallbackText}} {
		if got := s.selectStep(msgs(c.first, c.n)).step.Text; got != c.want {
			t.Errorf("%q after %d replies: %q, want %q", c.first, c.n, got, c.want)
		}
	}
	if err := (&Script{Threads: []Thread{{Steps: []Step{TextStep("x")}}}}).Validate(); err == nil {
		t.Error("a thread without match must be invalid")
	}
}
