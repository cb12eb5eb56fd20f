// Package tools assembles tandem's built-in tools. Each capability lives in
// its own package (fs, todo, shell, search, web); this package only lists
// them, so the runtime has one place to ask for "every built-in tool".
package tools

import (
	"os"

	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/fs"
	"github.com/tandem-agent/tandem/internal/tools/interact"
	"github.com/tandem-agent/tandem/internal/tools/search"
	"github.com/tandem-agent/tandem/internal/tools/shell"
	"github.com/tandem-agent/tandem/internal/tools/todo"
	"github.com/tandem-agent/tandem/internal/tools/web"
)

// Options carries what built-in tools need from configuration.
type Options struct {
	// Sandboxed: the session's commands run in the OS sandbox; Bash then
	// offers dangerouslyDisableSandbox.
	Sandboxed bool
	// Fetch configures WebFetch (private addresses, summariser).
	Fetch web.FetchConfig
	// Searcher is WebSearch's backend; nil makes WebSearch answer with a
	// clear "not configured" error.
	Searcher web.Searcher
	// Secrets are the variables Bash commands never inherit (and whose
	// values are blanked in their output); the zero Policy means the
	// well-known provider keys.
	Secrets secrets.Policy
}

// Default returns every built-in tool, in no particular order (the registry
// sorts them).
func Default(opts Options) []tool.Tool {
	// One redactor for the session: building it reads the credential and
	// token files.
	redact := opts.Secrets.Redactor(os.Environ())
	return redactAll(builtins(opts, redact), redact)
}

// builtins is the one list of tandem's built-in tools: adding a tool is its
// file, one line here and its docs entry (docs/tools.md).
func builtins(opts Options, redact *secrets.Redactor) []tool.Tool {
	ts := []tool.Tool{
		fs.NewRead(),
		fs.NewWrite(),
		fs.NewEdit(),
		fs.NewMultiEdit(),
		todo.NewTodoWrite(),
		shell.NewBashWith(shell.Options{Secrets: opts.Secrets, Redact: redact, Sandboxed: opts.Sandboxed}),
		shell.NewBashOutput(),
		shell.NewKillShell(),
		search.NewGlob(),
		search.NewGrep(),
		web.NewWebFetch(opts.Fetch),
		interact.NewExitPlanMode(),
		interact.NewAskUserQuestion(),
	}
	if opts.Searcher != nil {
		ts = append(ts, web.NewWebSearch(opts.Searcher))
	} else {
		ts = append(ts, web.NewWebSearch(nil))
	}
	return ts
}

// Lookup finds a built-in tool by name, with no session, for what a tool
// says of itself (tool.FileAccessor, tool.Contained, tool.Kinded,
// tool.Summarizer, tool.ChangeDescriber) where no session's registry is at
// hand: the permission engine and the tool filter read it after a
// session's own tools, so `tandem permissions` and the claude-code
// runtime's calls to the CLI's Read, Write, Edit, MultiEdit, Glob, Grep,
// Bash and TodoWrite (same inputs) are judged by the same declarations.
// Its tools are never run.
func Lookup() tool.Lookup {
	byName := map[string]tool.Tool{}
	for _, t := range builtins(Options{}, nil) {
		byName[t.Name()] = t
	}
	return func(name string) (tool.Tool, bool) {
		t, ok := byName[name]
		return t, ok
	}
}
