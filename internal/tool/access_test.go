package tool

import (
	"context"
	"encoding/json"
	"testing"
)

// The path a guard judges is the path the tool's decoder uses: keys match
// in any case (as encoding/json matches them), and a key given twice in
// two spellings is refused rather than guessed at.
func TestStringFieldDecodesAsTheTool(t *testing.T) {
	cases := []struct {
		in, want string
		err      bool
	}{
		{`{"file_path":"a"}`, "a", false},
		{`{"FILE_PATH":"b"}`, "b", false},
		{`{"File_Path":"c","content":"x"}`, "c", false},
		{`{"file_path":"a","FILE_PATH":"b"}`, "", true},
		{`{"file_path":"a","file_path":"b"}`, "", true},
		{`{"file_path":1}`, "", true},
		{`[1]`, "", true},
		{`{}`, "", false},
		{`null`, "", false},
		{`{"file_path":null}`, "", false},
	}
	for _, c := range cases {
		got, err := StringField(json.RawMessage(c.in), "file_path")
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: got %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
		// encoding/json agrees wherever StringField answers.
		var v struct {
			P *string `json:"file_path"`
		}
		if err == nil && json.Unmarshal([]byte(c.in), &v) == nil && v.P != nil && *v.P != got {
			t.Errorf("%s: encoding/json reads %q, StringField %q", c.in, *v.P, got)
		}
	}
}

type declared struct{ Tool }

func (declared) FileAccess(json.RawMessage) ([]Access, error) {
	return []Access{{Path: "x", Write: true}}, nil
}

type wrapper struct{ Tool }

func (w wrapper) Unwrap() Tool { return w.Tool }

type plain struct{}

func (plain) Name() string            { return "p" }
func (plain) Description() string     { return "" }
func (plain) Schema() json.RawMessage { return nil }
func (plain) Execute(context.Context, Call) (Result, error) {
	return Result{}, nil
}

// A wrapper (redaction, checkpoints) keeps what the wrapped tool declares.
func TestAccessorOfLooksThroughWrappers(t *testing.T) {
	if _, ok := AccessorOf(wrapper{wrapper{declared{plain{}}}}); !ok {
		t.Error("the declaration was lost through two wrappers")
	}
	if _, ok := AccessorOf(wrapper{plain{}}); ok {
		t.Error("a tool that declares nothing was found declaring")
	}
}
