package permission

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
)

// builtinFiles is what tandem's built-in tools declare, as the
// application gives it to every engine (EngineOptions.Tools).
var builtinFiles = tools.Lookup()

// withBuiltins is a session's lookup: the tools declared by l (each a
// declaration only), then tandem's built-in ones.
func withBuiltins(l func(string) (tool.FileAccessor, bool)) tool.Lookup {
	return tool.Lookup(func(name string) (tool.Tool, bool) {
		acc, ok := l(name)
		if !ok {
			return nil, false
		}
		return declaredTool{name: name, acc: acc}, true
	}).Then(builtinFiles)
}

// declaredTool is a tool known only by what it declares of its files (and
// the preview, when the declaration has one).
type declaredTool struct {
	name string
	acc  tool.FileAccessor
}

func (d declaredTool) Name() string            { return d.name }
func (d declaredTool) Description() string     { return "" }
func (d declaredTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (d declaredTool) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}
func (d declaredTool) FileAccess(in json.RawMessage) ([]tool.Access, error) {
	return d.acc.FileAccess(in)
}

// PreviewWrite is the declaration's, when it previews; otherwise an error,
// which shows no preview.
func (d declaredTool) PreviewWrite(in json.RawMessage, path, current string) (string, error) {
	if pv, ok := d.acc.(tool.WritePreviewer); ok {
		return pv.PreviewWrite(in, path, current)
	}
	return "", errors.New("previews nothing")
}

func TestCanAsk(t *testing.T) {
	if NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: t.TempDir()}).CanAsk() {
		t.Error("an engine without an asker says it can ask")
	}
	e := NewEngine(EngineOptions{Tools: builtinFiles, WorkDir: t.TempDir(), Asker: AskerFunc(nil)})
	if !e.CanAsk() || !e.Narrowed(Explore).(narrowed).CanAsk() {
		t.Error("an engine with an asker says it cannot ask")
	}
}
