package search

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tandem-agent/tandem/internal/tool"
)

const (
	globName = "Glob"
	// globLimit is Claude Code's cap on Glob results.
	globLimit = 100
)

//go:embed glob.md
var globDescription string

var globSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "The glob pattern to match files against"},
    "path": {"type": "string", "description": "The directory to search in. If not specified, the current working directory will be used. IMPORTANT: Omit this field to use the default directory. DO NOT enter \"undefined\" or \"null\" - simply omit it for the default behavior. Must be a valid directory path if provided."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

// Glob finds files by name pattern.
type Glob struct{}

// NewGlob returns the Glob tool.
func NewGlob() *Glob { return &Glob{} }

func (*Glob) Name() string            { return globName }
func (*Glob) Description() string     { return globDescription }
func (*Glob) Schema() json.RawMessage { return globSchema }
func (*Glob) ReadOnly() bool          { return true }

type globInput struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

type fileHit struct {
	path  string
	mtime time.Time
}

func (g *Glob) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil {
		return tool.Result{}, fmt.Errorf("glob: call has no session environment")
	}
	var in globInput
	if err := tool.DecodeInput(globName, call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if err := tool.RequireString(globName, "pattern", in.Pattern); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	root, err := searchDir(globName, call.Env, in.Path, true)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	root, pattern := splitPattern(root, in.Pattern)
	if !doublestar.ValidatePattern(pattern) {
		return tool.ErrorResult(fmt.Sprintf("invalid input for Glob: %q is not a valid glob pattern (check for unbalanced [ ] or { })", in.Pattern)), nil
	}
	began := time.Now()
	hits, err := globFiles(ctx, root, pattern)
	if err != nil {
		return tool.Result{}, fmt.Errorf("glob %s in %s: %w", pattern, root, err)
	}
	return globResult(hits, time.Since(began)), nil
}

// splitPattern moves a pattern's literal leading folders (and an absolute
// pattern's whole folder part) into the search root, so that the walk
// starts as deep as it can.
func splitPattern(root, pattern string) (string, string) {
	pattern = filepath.ToSlash(pattern)
	if strings.HasPrefix(pattern, "/") {
		base, rest := doublestar.SplitPattern(pattern)
		return filepath.Clean(filepath.FromSlash(base)), rest
	}
	pattern = strings.TrimPrefix(pattern, "./")
	base, rest := doublestar.SplitPattern(pattern)
	if base == "." || base == "" || strings.Contains(base, "..") {
		return root, pattern
	}
	dir := filepath.Join(root, filepath.FromSlash(base))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return root, pattern
	}
	return dir, rest
}

func globFiles(ctx context.Context, root, pattern string) ([]fileHit, error) {
	var hits []fileHit
	err := newWalker(root).walk(ctx, func(path, rel string, d fs.DirEntry) error {
		if ok, _ := doublestar.Match(pattern, rel); !ok {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished meanwhile
		}
		hits = append(hits, fileHit{path: path, mtime: info.ModTime()})
		return nil
	})
	sortNewestFirst(hits)
	return hits, err
}

func sortNewestFirst(hits []fileHit) {
	sort.Slice(hits, func(i, j int) bool {
		if !hits[i].mtime.Equal(hits[j].mtime) {
			return hits[i].mtime.After(hits[j].mtime)
		}
		return hits[i].path < hits[j].path
	})
}

func globResult(hits []fileHit, took time.Duration) tool.Result {
	meta := map[string]any{"num_files": len(hits), "duration_ms": took.Milliseconds()}
	if len(hits) == 0 {
		return tool.Result{Content: "No files found", Meta: meta}
	}
	truncated := len(hits) > globLimit
	if truncated {
		hits = hits[:globLimit]
		meta["truncated"] = true
	}
	var sb strings.Builder
	for _, h := range hits {
		sb.WriteString(h.path)
		sb.WriteByte('\n')
	}
	if truncated {
		fmt.Fprintf(&sb, "(Results are truncated: showing the %d most recently modified of %d files. Consider using a more specific path or pattern.)\n", globLimit, meta["num_files"])
	}
	return tool.Result{Content: strings.TrimRight(sb.String(), "\n"), Meta: meta}
}

// searchDir resolves a tool's optional path parameter against the session's
// working folder and checks that it exists (and is a folder if wantDir).
func searchDir(toolName string, env *tool.Env, p string, wantDir bool) (string, error) {
	p = strings.TrimSpace(p)
	if p == "undefined" || p == "null" {
		p = ""
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("invalid input for %s: path contains a NUL byte", toolName)
	}
	if strings.HasPrefix(p, "~/") || p == "~" {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
	}
	if p == "" {
		p = env.WorkDir
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(env.WorkDir, p)
	}
	p = filepath.Clean(p)
	fi, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("%s: path %s does not exist (give an existing folder, absolute or relative to %s)", toolName, p, env.WorkDir)
	}
	if wantDir && !fi.IsDir() {
		return "", fmt.Errorf("%s: path %s is a file, not a folder; give the folder to search in", toolName, p)
	}
	return p, nil
}
