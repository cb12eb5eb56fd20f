// Package tools assembles tandem's built-in tools. Each capability lives in
// its own package (fs, todo, shell, search, web); this package only lists
// them, so the runtime has one place to ask for "every built-in tool".
package tools

import (
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools/fs"
	"github.com/tandem-agent/tandem/internal/tools/todo"
)

// Options carries what built-in tools need from configuration. It is empty
// for now; the web tools' settings (a WebFetch config struct, a search
// backend) will be added here when those tools are wired in.
type Options struct{}

// Default returns every built-in tool, in no particular order (the registry
// sorts them).
//
// TODO(lead): add the shell, search and web tools once their packages land:
// shell.NewBash(), shell.NewBashOutput(), shell.NewKillShell(),
// search.NewGlob(), search.NewGrep(), web.NewWebFetch(...), web.NewWebSearch(...).
func Default(opts Options) []tool.Tool {
	_ = opts
	return []tool.Tool{
		fs.NewRead(),
		fs.NewWrite(),
		fs.NewEdit(),
		fs.NewMultiEdit(),
		todo.NewTodoWrite(),
	}
}
