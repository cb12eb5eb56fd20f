package permission

// Rootable is a checker that can judge for another workspace: what a
// sub-agent working in its own git worktree is checked by.
type Rootable interface {
	Rooted(dir string) Checker
}

// Rooted returns a view of e whose workspace is dir: relative paths are
// taken against dir and the boundary is drawn around it (and e's other
// roots, the --add-dir folders), not around e's working folder. The view
// shares e's mode, rules of every layer (session rules and grants
// included), hooks and asker, so it never allows what e refuses for
// reasons other than the folder. A sub-agent isolated in a worktree of
// the repository is checked by it, so its file tools and commands stay
// inside its worktree.
func (e *Engine) Rooted(dir string) Checker {
	opts := e.opts
	opts.WorkDir = dir
	opts.Roots = append([]string{dir}, e.roots[1:]...)
	return &Engine{opts: opts, roots: opts.Roots, gitPrograms: linkedGitPrograms(opts.Roots), engineState: e.engineState}
}

// Rooted is the narrowed view of e.Rooted(dir).
func (n narrowed) Rooted(dir string) Checker {
	return narrowed{e: n.e.Rooted(dir).(*Engine), mode: n.mode}
}
