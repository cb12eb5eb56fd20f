package checkpoint

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// Summary is a checkpoint as the CLI's --json and the HTTP API show it.
type Summary struct {
	Number    int           `json:"number"`
	CreatedAt time.Time     `json:"created_at"`
	Prompt    string        `json:"prompt"`
	Position  int64         `json:"position"`
	Files     []FileSummary `json:"files"`
}

// FileSummary is one file a prompt's turn changed and its state before.
type FileSummary struct {
	Path  string `json:"path"`  // relative to the session folder when inside it
	State string `json:"state"` // saved (it existed), absent (the turn created it), too_large (not restorable)
}

// Summaries describes checkpoints with paths relative to root.
func Summaries(cps []store.Checkpoint, root string) []Summary {
	out := make([]Summary, 0, len(cps))
	for _, cp := range cps {
		s := Summary{Number: cp.Number, CreatedAt: cp.CreatedAt, Prompt: cp.Prompt, Position: cp.Position, Files: []FileSummary{}}
		for _, f := range cp.Files {
			s.Files = append(s.Files, FileSummary{Path: RelPath(root, f.Path), State: f.State})
		}
		out = append(out, s)
	}
	return out
}

// RelPath shows p relative to root when it is inside it.
func RelPath(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return p
}

// ResultSummary is a rewind's outcome for the CLI's --json and the API.
type ResultSummary struct {
	Checkpoint int      `json:"checkpoint"`
	Restored   []string `json:"restored"`
	Removed    []string `json:"removed"`
	Unchanged  []string `json:"unchanged"`
	Skipped    []string `json:"skipped"`
	// Outside lists files left alone because they are no longer inside
	// the session's folders (a folder on the way became a symbolic link).
	Outside  []string `json:"outside"`
	Messages int      `json:"messages_removed"`
}

// Summarize describes a rewind's result with paths relative to root.
func (r RewindResult) Summarize(root string) ResultSummary {
	rel := func(ps []string) []string {
		out := make([]string, 0, len(ps))
		for _, p := range ps {
			out = append(out, RelPath(root, p))
		}
		return out
	}
	return ResultSummary{Checkpoint: r.Checkpoint.Number, Restored: rel(r.Restored), Removed: rel(r.Removed),
		Unchanged: rel(r.Unchanged), Skipped: rel(r.Skipped), Outside: rel(r.Outside), Messages: r.Messages}
}
