package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/projectfile"
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/shell"
)

// Limits of what one @ mention brings into a prompt.
const (
	// mentionFileLimit: a file over it is cut there (and said).
	mentionFileLimit = 64 << 10
	// mentionDirLimit: the entries of a folder listed at most.
	mentionDirLimit = 500
)

// inlineRunner runs a /command's ! commands and reads its @ files for
// skills.ExpandInline, each judged by the session's permission engine as
// the Bash or Read call it is: a ! command runs only if a Bash call with
// that command would (the command's allowed-tools count only as
// skillGrants grants them: in a trusted folder, or for the user's own
// files), through the session's own Bash tool (its timeout, output cap,
// secret redaction, process group); an @ file is read only if a Read
// call of it would be allowed, and only through projectfile (inside the
// repository, a regular file, no credential-like path, bounded).
//
// A project command's ! lines run only in a trusted folder, whatever the
// engine would say of the command: they are the repository's files running
// a command, which an untrusted folder never does (skillGrants.runsCommands).
type inlineRunner struct {
	eq    *Equipment
	name  string // the command, for the ids of its calls
	scope skills.Scope
	n     atomic.Int64
}

func (r *inlineRunner) callID(kind string) string {
	return fmt.Sprintf("%s-%s-%d", kind, r.name, r.n.Add(1))
}

// Shell implements skills.Inline.
func (r *inlineRunner) Shell(ctx context.Context, command string) (string, error) {
	l := r.eq.l
	if !r.eq.grants.runsCommands(r.scope) {
		return "", fmt.Errorf("the folder is not trusted, so its commands' ! lines do not run (run `tandem trust %s` to let them)", l.Snapshot().Cwd)
	}
	bash, ok := l.Tools().Get("Bash")
	if !ok {
		return "", errors.New("this session has no Bash tool")
	}
	input, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return "", err
	}
	id := r.callID("command")
	d, err := r.eq.checker.Check(ctx, permission.Request{SessionID: l.Env().SessionID, ToolUseID: id,
		Tool: "Bash", Input: input, Cwd: shell.CurrentDir(l.Env())})
	if err != nil {
		return "", fmt.Errorf("the permission check failed: %w", err)
	}
	if d.Behavior != permission.Allow {
		return "", fmt.Errorf("permission denied: %s", d.Message)
	}
	if len(d.UpdatedInput) > 0 {
		input = d.UpdatedInput // a hook rewrote it; the engine judged the rewrite
	}
	// The command's output goes into the prompt, not to a tool card: no
	// tool_output events for a call no tool_use announced.
	env := *l.Env()
	env.Emit = func(event.Event) {}
	res, err := bash.Execute(ctx, tool.Call{ID: id, Name: "Bash", Input: input, Env: &env})
	if err != nil {
		return "", fmt.Errorf("could not run: %w", err)
	}
	out := res.Content
	if out == "(no output)" {
		out = ""
	}
	return out, nil
}

// File implements skills.Inline.
func (r *inlineRunner) File(ctx context.Context, path string) (skills.FileRef, error) {
	l := r.eq.l
	cwd := l.Snapshot().Cwd
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, path)
	}
	abs = filepath.Clean(abs)
	input, err := json.Marshal(map[string]string{"file_path": abs})
	if err != nil {
		return skills.FileRef{}, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return skills.FileRef{}, err // missing: left as text
	}
	root := projectfile.Open(cwd)
	ref := skills.FileRef{Path: path, Dir: info.IsDir()}
	// The repository's rules first, so a link out or a FIFO is refused
	// whatever the permission rules say.
	var data []byte
	var entries []string
	if ref.Dir {
		entries, ref.Truncated, err = root.List(abs, mentionDirLimit)
	} else {
		data, ref.Truncated, err = root.ReadTruncated(abs, mentionFileLimit)
	}
	if err != nil {
		return skills.FileRef{}, refusedRead(err)
	}
	d, err := r.eq.checker.Check(ctx, permission.Request{SessionID: l.Env().SessionID, ToolUseID: r.callID("mention"),
		Tool: "Read", Input: input, Cwd: cwd, ReadOnly: true})
	if err != nil {
		return skills.FileRef{}, fmt.Errorf("the permission check failed: %w", err)
	}
	if d.Behavior != permission.Allow {
		return skills.FileRef{}, fmt.Errorf("permission denied: %s", d.Message)
	}
	if ref.Dir {
		ref.Content = strings.Join(entries, "\n")
		return ref, nil
	}
	if strings.IndexByte(string(data), 0) >= 0 {
		return skills.FileRef{}, errors.New("a binary file; name a text file")
	}
	ref.Content = string(data)
	return ref, nil
}

// refusedRead words projectfile's refusals for the prompt; a missing file
// stays fs.ErrNotExist.
func refusedRead(err error) error {
	if projectfile.Refused(err) {
		return fmt.Errorf("refused: %w", err)
	}
	return err
}

// expandInline runs cmd's ! commands and includes its @ files; what was
// refused is said in the prompt and in a status event.
func (eq *Equipment) expandInline(ctx context.Context, cmd *skills.Command, text string) string {
	out, notes := skills.ExpandInline(ctx, text, &inlineRunner{eq: eq, name: cmd.Name, scope: cmd.Scope})
	for _, n := range notes {
		eq.l.Events().Emit(event.Event{Type: event.Status, Message: fmt.Sprintf("/%s: %s", cmd.Name, n),
			Meta: map[string]any{"command": cmd.Name, "notice": "command_inline"}})
	}
	return out
}
