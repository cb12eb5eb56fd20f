package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

const killShellName = "KillShell"

//go:embed kill_shell.md
var killShellDescription string

var killShellSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "shell_id": {"type": "string", "description": "The ID of the background shell to kill"}
  },
  "required": ["shell_id"],
  "additionalProperties": false
}`)

// KillShell stops a background shell and its process group.
type KillShell struct{}

// NewKillShell returns the KillShell tool.
func NewKillShell() *KillShell { return &KillShell{} }

func (*KillShell) Name() string            { return killShellName }
func (*KillShell) Description() string     { return killShellDescription }
func (*KillShell) Schema() json.RawMessage { return killShellSchema }

type killShellInput struct {
	ShellID string `json:"shell_id"`
}

func (*KillShell) Execute(_ context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil {
		return tool.Result{}, fmt.Errorf("killshell: call has no session environment")
	}
	var in killShellInput
	if err := tool.DecodeInput(killShellName, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString(killShellName, "shell_id", in.ShellID); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	t := loadJobs(call.Env)
	j, ok := t.get(strings.TrimSpace(in.ShellID))
	if !ok {
		return tool.ErrorResult(unknownShell(t, in.ShellID)), nil
	}
	if !j.kill() {
		status, code := j.state()
		return tool.ErrorResult(fmt.Sprintf("Shell %s is not running (status %s, exit code %d); nothing to kill.", j.id, status, code)), nil
	}
	return tool.Result{Content: fmt.Sprintf("Successfully killed shell: %s (%s)", j.id, j.command),
		Meta: map[string]any{"shell_id": j.id, "status": string(statusKilled)}}, nil
}
