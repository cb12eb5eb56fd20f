package tool

// Lookup finds a tool by name for what it declares of itself (the files a
// call touches, whether it changes anything, what kind of work it does):
// the one way every guard (the permission engine, the tool filter, the
// checkpoint recorder, the Claude Code controller) learns a tool's
// properties, so none keeps a table of tool names of its own. A nil
// Lookup finds nothing.
type Lookup func(name string) (Tool, bool)

// Find is the tool named name, if l knows it.
func (l Lookup) Find(name string) (Tool, bool) {
	if l == nil {
		return nil, false
	}
	return l(name)
}

// Files is what the named tool declares of the files its calls touch.
func (l Lookup) Files(name string) (FileAccessor, bool) {
	t, ok := l.Find(name)
	if !ok {
		return nil, false
	}
	return AccessorOf(t)
}

// Then is l, and next for the names l does not know: a session's own
// tools first, then the ones it falls back on.
func (l Lookup) Then(next Lookup) Lookup {
	return func(name string) (Tool, bool) {
		if t, ok := l.Find(name); ok {
			return t, true
		}
		return next.Find(name)
	}
}

// Lookup finds the registry's tools (aliases included).
func (r *Registry) Lookup() Lookup {
	return func(name string) (Tool, bool) {
		if r == nil {
			return nil, false
		}
		return r.Get(name)
	}
}

// Contained is implemented by tools whose calls touch no file and change
// nothing outside tandem's own session: its to-do list, the background
// jobs it started, a question put to the user, a sub-agent whose own
// calls are judged one by one. The permission engine allows them in every
// mode, explore included, unless a rule names them.
type Contained interface {
	Contained() bool
}

// IsContained reports whether t, or a tool it wraps, declares itself
// contained.
func IsContained(t Tool) bool {
	c, ok := Unwrapped[Contained](t)
	return ok && c.Contained()
}

// RunsCommands reports whether t's calls run arbitrary commands, so
// anything in the workspace may change (the checkpoint recorder then scans
// for changes): an execute tool that is neither read-only nor contained.
func RunsCommands(t Tool) bool {
	if t == nil {
		return false
	}
	return KindOf(t) == KindExecute && !IsReadOnly(t) && !IsContained(t)
}
