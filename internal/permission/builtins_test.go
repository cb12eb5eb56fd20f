package permission

import (
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
)

// builtinFiles is what tandem's built-in tools declare, as the
// application gives it to every engine (EngineOptions.FileTools).
var builtinFiles fileLookup = tools.FileTools()

// withBuiltins is l, then tandem's built-in tools, as a session's lookup.
func withBuiltins(l fileLookup) func(string) (tool.FileAccessor, bool) {
	return func(name string) (tool.FileAccessor, bool) {
		if a, ok := l(name); ok {
			return a, true
		}
		return builtinFiles(name)
	}
}
