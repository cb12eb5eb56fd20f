package shell

import (
	"cmp"
	"encoding/json"

	"github.com/tandem-agent/tandem/internal/tool"
)

// What the shell tools say of themselves to front ends (tool.Kinded,
// tool.Summarizer).

func (*Bash) Kind() tool.Kind       { return tool.KindExecute }
func (*BashOutput) Kind() tool.Kind { return tool.KindExecute }
func (*KillShell) Kind() tool.Kind  { return tool.KindExecute }

// Contained: KillShell stops a job this session started and changes
// nothing else (tool.Contained), so it runs in every mode.
func (*KillShell) Contained() bool { return true }

func (*Bash) Summary(input json.RawMessage) string {
	return cmp.Or(tool.Str(input, "command"), bashName)
}

func (*BashOutput) Summary(input json.RawMessage) string { return jobSummary(bashOutputName, input) }
func (*KillShell) Summary(input json.RawMessage) string  { return jobSummary(killShellName, input) }

// jobSummary names a background job by the id either name of its key
// gives.
func jobSummary(name string, input json.RawMessage) string {
	return name + " " + tool.Str(input, "bash_id") + tool.Str(input, "shell_id")
}
