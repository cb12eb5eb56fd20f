package checkpoint

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// runner is a tool that runs commands (tool.KindExecute); ro and
// contained are what else it declares.
type runner struct {
	name          string
	ro, contained bool
}

func (r runner) Name() string            { return r.name }
func (r runner) Description() string     { return "" }
func (r runner) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (r runner) Execute(context.Context, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}
func (runner) Kind() tool.Kind   { return tool.KindExecute }
func (r runner) ReadOnly() bool  { return r.ro }
func (r runner) Contained() bool { return r.contained }

// A tool that runs commands is recorded (the workspace is scanned around
// its calls) because it declares so, whatever its name; one that only
// reads a job's output or stops a job is not.
func TestCommandToolsAreRecordedByDeclaration(t *testing.T) {
	tr := &Tracker{}
	for _, c := range []struct {
		r    runner
		want bool
	}{
		{runner{name: "Shell"}, true},
		{runner{name: "Bash"}, true},
		{runner{name: "JobOutput", ro: true}, false},
		{runner{name: "StopJob", contained: true}, false},
	} {
		_, tracked := WrapTools(tr, []tool.Tool{c.r})[0].(trackedTool)
		if tracked != c.want {
			t.Errorf("%s tracked: %t, want %t", c.r.name, tracked, c.want)
		}
	}
}
