package shell

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

const bashOutputName = "BashOutput"

//go:embed bash_output.md
var bashOutputDescription string

var bashOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "bash_id": {"type": "string", "description": "The ID of the background shell to retrieve output from"},
    "filter": {"type": "string", "description": "Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."}
  },
  "required": ["bash_id"],
  "additionalProperties": false
}`)

// BashOutput reads new output of a background shell.
type BashOutput struct{}

// NewBashOutput returns the BashOutput tool.
func NewBashOutput() *BashOutput { return &BashOutput{} }

func (*BashOutput) Name() string            { return bashOutputName }
func (*BashOutput) Description() string     { return bashOutputDescription }
func (*BashOutput) Schema() json.RawMessage { return bashOutputSchema }

// ReadOnly: reading a job's output changes nothing outside tandem.
func (*BashOutput) ReadOnly() bool { return true }

type bashOutputInput struct {
	BashID string `json:"bash_id"`
	Filter string `json:"filter"`
}

func (*BashOutput) Execute(_ context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil {
		return tool.Result{}, fmt.Errorf("bashoutput: call has no session environment")
	}
	var in bashOutputInput
	if err := tool.DecodeInput(bashOutputName, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString(bashOutputName, "bash_id", in.BashID); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	var re *regexp.Regexp
	if in.Filter != "" {
		var err error
		if re, err = regexp.Compile(in.Filter); err != nil {
			return tool.ErrorResult(fmt.Sprintf("invalid input for BashOutput: filter is not a valid regular expression (RE2 syntax): %v", err)), nil
		}
	}
	t := loadJobs(call.Env)
	j, ok := t.get(strings.TrimSpace(in.BashID))
	if !ok {
		return tool.ErrorResult(unknownShell(t, in.BashID)), nil
	}
	// Read the status first: output written before the job ended is then
	// certainly included in this read.
	status, code := j.state()
	body, note := j.readNew(re)
	var sb strings.Builder
	fmt.Fprintf(&sb, "<status>%s</status>\n", status)
	if status != statusRunning {
		fmt.Fprintf(&sb, "<exit_code>%d</exit_code>\n", code)
	}
	if note != "" {
		fmt.Fprintf(&sb, "<note>%s</note>\n", note)
	}
	if body == "" {
		sb.WriteString("<output>(no new output)</output>")
	} else {
		fmt.Fprintf(&sb, "<output>\n%s\n</output>", strings.TrimRight(body, "\n"))
	}
	meta := map[string]any{"bash_id": j.id, "status": string(status)}
	if status != statusRunning {
		meta["exit_code"] = code
	}
	return tool.Result{Content: sb.String(), Meta: meta}, nil
}

// readNew returns output since the previous read and advances the cursor.
func (j *job) readNew(re *regexp.Regexp) (body, note string) {
	j.mu.Lock()
	pos := j.readPos
	j.mu.Unlock()
	var next int64
	if re == nil {
		var data []byte
		var skipped int64
		data, next, skipped = j.log.readSince(pos)
		body = string(data)
		if skipped > 0 {
			note = fmt.Sprintf("%d earlier bytes of new output were skipped", skipped)
			if j.log.path != "" {
				note += "; the full output is in " + j.log.path
			}
		}
	} else {
		var lines []string
		var cut bool
		lines, next, cut = j.log.filterSince(pos, re)
		body = strings.Join(lines, "\n")
		if cut {
			note = "more matching lines than fit were dropped; use a narrower filter"
		}
	}
	j.mu.Lock()
	if next > j.readPos {
		j.readPos = next
	}
	j.mu.Unlock()
	return body, note
}

func unknownShell(t *jobTable, id string) string {
	ids := t.ids()
	if len(ids) == 0 {
		return fmt.Sprintf("No background shell with ID %q: none was started in this session (start one with Bash run_in_background: true).", id)
	}
	return fmt.Sprintf("No background shell with ID %q. Known shells: %s.", id, strings.Join(ids, ", "))
}
