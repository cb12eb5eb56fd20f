package search

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/tool"
)

const grepName = "Grep"

//go:embed grep.md
var grepDescription string

var grepSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "The regular expression pattern to search for in file contents"},
    "path": {"type": "string", "description": "File or directory to search in (rg PATH). Defaults to current working directory."},
    "glob": {"type": "string", "description": "Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob"},
    "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\"."},
    "-B": {"type": "number", "description": "Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise."},
    "-A": {"type": "number", "description": "Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise."},
    "-C": {"type": "number", "description": "Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."},
    "context": {"type": "number", "description": "Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise."},
    "-n": {"type": "boolean", "description": "Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true."},
    "-i": {"type": "boolean", "description": "Case insensitive search (rg -i)"},
    "type": {"type": "string", "description": "File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than the glob parameter for standard file types."},
    "head_limit": {"type": "number", "description": "Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 0 (unlimited)."},
    "offset": {"type": "number", "description": "Skip first N lines/entries before applying head_limit, equivalent to \"| tail -n +N | head -N\". Works across all output modes. Defaults to 0."},
    "multiline": {"type": "boolean", "description": "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

// GrepOptions configures the Grep tool.
type GrepOptions struct {
	// RipgrepPath is the rg binary; "" looks it up on PATH at each call.
	RipgrepPath string
	// DisableRipgrep forces the built-in Go search.
	DisableRipgrep bool
	// AlwaysRipgrep sends small trees to ripgrep too, which otherwise
	// are searched in-process (grep_small.go); for tests and benchmarks
	// of ripgrep itself.
	AlwaysRipgrep bool
}

// Grep searches file contents, with ripgrep when installed and a pure-Go
// search with the same semantics otherwise.
type Grep struct{ opts GrepOptions }

// NewGrep returns Grep using rg from PATH when present.
func NewGrep() *Grep { return &Grep{} }

// NewGrepWith returns Grep with explicit options.
func NewGrepWith(opts GrepOptions) *Grep { return &Grep{opts: opts} }

func (*Grep) Name() string            { return grepName }
func (*Grep) Description() string     { return grepDescription }
func (*Grep) Schema() json.RawMessage { return grepSchema }
func (*Grep) ReadOnly() bool          { return true }

type grepInput struct {
	Pattern    string   `json:"pattern"`
	Path       string   `json:"path"`
	Glob       string   `json:"glob"`
	OutputMode string   `json:"output_mode"`
	Before     *float64 `json:"-B"`
	After      *float64 `json:"-A"`
	Context    *float64 `json:"-C"`
	Context2   *float64 `json:"context"`
	LineNums   *bool    `json:"-n"`
	IgnoreCase bool     `json:"-i"`
	Type       string   `json:"type"`
	HeadLimit  *float64 `json:"head_limit"`
	Offset     *float64 `json:"offset"`
	Multiline  bool     `json:"multiline"`
}

const (
	modeContent = "content"
	modeFiles   = "files_with_matches"
	modeCount   = "count"
)

// query is a validated Grep request, shared by both search engines.
type query struct {
	pattern           string
	root              string
	rootIsFile        bool
	globs             []string
	fileType          string
	mode              string
	before, after     int
	lineNumbers       bool
	ignoreCase        bool
	multiline         bool
	headLimit, offset int
}

// lineEntry is one output line of content mode.
type lineEntry struct {
	num   int
	text  string
	match bool
}

// fileResult is what an engine found in one file.
type fileResult struct {
	path  string
	count int         // matching lines
	lines []lineEntry // content mode: matches and context, by line number
}

// engine is one way of running a query.
type engine interface {
	search(ctx context.Context, q query) ([]fileResult, error)
}

func (g *Grep) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil {
		return tool.Result{}, fmt.Errorf("grep: call has no session environment")
	}
	q, err := parseGrep(call.Env, call.Input)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	began := time.Now()
	results, name, err := g.search(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return tool.ErrorResult("Grep was interrupted."), nil
		}
		return tool.ErrorResult(err.Error()), nil
	}
	res := format(q, results)
	res.Meta["engine"] = name
	res.Meta["duration_ms"] = time.Since(began).Milliseconds()
	return res, nil
}

// search runs q with ripgrep, unless the Go search can answer it as rg
// would faster (smallSearch), or rg is missing or disabled.
func (g *Grep) search(ctx context.Context, q query) ([]fileResult, string, error) {
	eng, name := g.engine()
	if _, rg := eng.(rgEngine); rg && !g.opts.AlwaysRipgrep {
		if results, err := smallSearch(ctx, q); !errors.Is(err, errNotSmall) {
			return results, "go", err
		}
	}
	results, err := eng.search(ctx, q)
	return results, name, err
}

func (g *Grep) engine() (engine, string) {
	if !g.opts.DisableRipgrep {
		rg := g.opts.RipgrepPath
		if rg == "" {
			rg, _ = exec.LookPath("rg")
		}
		if rg != "" {
			return rgEngine{bin: rg}, "ripgrep"
		}
	}
	return goEngine{}, "go"
}

func parseGrep(env *tool.Env, raw json.RawMessage) (query, error) {
	var in grepInput
	if err := tool.DecodeInput(grepName, raw, &in); err != nil {
		return query{}, err
	}
	if in.Pattern == "" {
		// Whitespace is a legitimate pattern, so only "" is refused.
		return query{}, tool.RequireString(grepName, "pattern", in.Pattern)
	}
	if strings.IndexByte(in.Pattern, 0) >= 0 {
		return query{}, fmt.Errorf("invalid input for Grep: pattern contains a NUL byte")
	}
	q := query{pattern: in.Pattern, ignoreCase: in.IgnoreCase, multiline: in.Multiline, lineNumbers: true}
	if _, err := compilePattern(q); err != nil {
		return query{}, fmt.Errorf("invalid input for Grep: pattern %q is not a valid regular expression: %v (escape literal characters such as { } ( ) [ ] with a backslash)", in.Pattern, err)
	}
	switch in.OutputMode {
	case "":
		q.mode = modeFiles
	case modeContent, modeFiles, modeCount:
		q.mode = in.OutputMode
	default:
		return query{}, fmt.Errorf("invalid input for Grep: output_mode must be \"content\", \"files_with_matches\" or \"count\", got %q", in.OutputMode)
	}
	var err error
	ints := []struct {
		name string
		v    *float64
		dst  *int
	}{{"-B", in.Before, &q.before}, {"-A", in.After, &q.after}, {"head_limit", in.HeadLimit, &q.headLimit}, {"offset", in.Offset, &q.offset}}
	ctx := -1
	for _, f := range ints {
		if *f.dst, err = nonNegInt(f.name, f.v, -1); err != nil {
			return query{}, err
		}
	}
	for _, c := range []struct {
		name string
		v    *float64
	}{{"-C", in.Context}, {"context", in.Context2}} {
		n, err := nonNegInt(c.name, c.v, -1)
		if err != nil {
			return query{}, err
		}
		if n >= 0 {
			ctx = n
		}
	}
	q.before = pick(q.before, ctx)
	q.after = pick(q.after, ctx)
	q.headLimit = max(q.headLimit, 0)
	q.offset = max(q.offset, 0)
	if in.LineNums != nil {
		q.lineNumbers = *in.LineNums
	}
	if q.mode != modeContent {
		q.before, q.after = 0, 0
	}
	q.fileType = strings.TrimSpace(in.Type)
	if q.fileType != "" && !validType().MatchString(q.fileType) {
		return query{}, fmt.Errorf("invalid input for Grep: type %q is not a file type name (e.g. \"go\", \"py\", \"js\")", q.fileType)
	}
	if q.globs, err = splitGlobs(in.Glob); err != nil {
		return query{}, err
	}
	if q.root, err = searchDir(grepName, env, in.Path, false); err != nil {
		return query{}, err
	}
	// ripgrep (and a plain read) would wait forever on a FIFO given as
	// the path; walking a folder skips special files.
	fi, err := regular.Check(q.root, true)
	if regular.IsNotRegular(err) {
		return query{}, fmt.Errorf("Grep cannot search %s: %w", q.root, err)
	}
	if err == nil && !fi.IsDir() {
		q.rootIsFile = true
	}
	return q, nil
}

var validType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_+-]+$`) })

// pick returns the specific value when given, else the shared context.
func pick(specific, shared int) int {
	if specific >= 0 {
		return specific
	}
	return max(shared, 0)
}

func nonNegInt(name string, v *float64, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if *v < 0 || *v != float64(int(*v)) || *v > 1e9 {
		return 0, fmt.Errorf("invalid input for Grep: %q must be a whole number of at least 0, got %v", name, *v)
	}
	return int(*v), nil
}
