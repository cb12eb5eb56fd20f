package shell

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// walker visits every node of one parsed script. Simple commands are judged
// where their statement is (so the statement's redirections belong to
// them); every other construct that could change state on its own becomes
// a pseudo-command that is not read-only.
type walker struct {
	a     *analyzer
	src   string
	via   string
	depth int
	err   error
}

func (w *walker) text(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(w.src) || s > e {
		return ""
	}
	return w.src[s:e]
}

func (w *walker) pseudo(n syntax.Node, reason string) {
	w.a.cmds = append(w.a.cmds, Command{Text: w.text(n), Via: w.via, Reasons: []string{reason}})
}

func (w *walker) visit(n syntax.Node) bool {
	if w.err != nil {
		return false
	}
	switch n := n.(type) {
	case *syntax.Stmt:
		w.stmt(n)
	case *syntax.DeclClause:
		w.pseudo(n, "`"+n.Variant.Value+"` changes shell variables")
	case *syntax.LetClause:
		w.pseudo(n, "`let` evaluates arithmetic that can assign variables")
	case *syntax.ArithmCmd:
		w.pseudo(n, "arithmetic commands can assign variables")
	case *syntax.CStyleLoop:
		w.pseudo(n, "C-style loops evaluate arithmetic that can assign variables")
	case *syntax.CoprocClause:
		w.pseudo(n, "coprocesses run in the background")
	case *syntax.WordIter:
		if n.Name != nil && riskyVarName(n.Name.Value) {
			w.pseudo(n, "the loop assigns "+n.Name.Value)
		}
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
			w.pseudo(n, "arithmetic comparisons in [[ ]] evaluate their operands as code")
		}
	case *syntax.ParamExp:
		if n.Exp != nil {
			switch n.Exp.Op {
			case syntax.AssignUnset, syntax.AssignUnsetOrNull:
				w.pseudo(n, "the expansion assigns a variable")
			case syntax.OtherParamOps:
				w.pseudo(n, "the ${var@op} expansion can run code")
			}
		}
	case *syntax.ExtGlob:
		w.pseudo(n, "extended globs are not analysed")
	case *syntax.ForClause, *syntax.WhileClause, *syntax.FuncDecl:
		if w.depth == 0 && w.via == "" {
			w.a.repeating = append(w.a.repeating, [2]int{int(n.Pos().Offset()), int(n.End().Offset())})
		}
	}
	return true
}

func (w *walker) stmt(s *syntax.Stmt) {
	call, isCall := s.Cmd.(*syntax.CallExpr)
	var c *Command
	if isCall {
		c = w.call(call)
	} else if hasWriteRedirect(s.Redirs) {
		c = &Command{Text: w.text(s), Via: w.via}
		c.reason("a compound command's output is redirected")
	}
	if c == nil {
		if s.Background || s.Coprocess {
			w.pseudo(s, "runs in the background")
		}
		return
	}
	if s.Background || s.Coprocess || s.Disown {
		c.ReadOnly = false
		c.reason("runs in the background")
	}
	clean := c.ReadOnly
	w.redirects(c, s.Redirs)
	if clean && c.Writes && !c.FileOp {
		c.FileOp = true // a read-only command whose output goes to files
	}
	for _, t := range c.WriteTargets {
		if t == "" {
			c.FileOp = false
		}
	}
	w.a.cmds = append(w.a.cmds, *c)
	// Commands found inside wrappers are judged after the wrapper so that
	// the list reads in source order.
	w.unwrapInner(c)
}

func hasWriteRedirect(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		if isWriteOp(r.Op) {
			return true
		}
	}
	return false
}

func isWriteOp(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		return true
	}
	return false
}

// harmlessSinks are output targets that store nothing.
var harmlessSinks = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/fd/1": true, "/dev/fd/2": true, "/dev/tty": true,
}

func (w *walker) redirects(c *Command, rs []*syntax.Redirect) {
	for _, r := range rs {
		if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
			c.ReadOnly = false
			c.reason("the redirection assigns a file descriptor variable")
			continue
		}
		target, lit := literal(r.Word)
		switch {
		case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc:
			// Input only; substitutions inside are walked on their own.
		case r.Op == syntax.RdrIn:
			if !lit {
				c.ReadOnly = false
				c.reason("the input file is not a literal")
			} else if w.a.sensitive(w.abs(target)) {
				c.Sensitive = true
				c.reason("reads sensitive file " + target)
			}
		case r.Op == syntax.DplIn || r.Op == syntax.DplOut:
			if lit && (target == "-" || isDigits(target)) {
				continue
			}
			if r.Op == syntax.DplIn {
				c.ReadOnly = false
				c.reason("the descriptor duplication is not understood")
				continue
			}
			w.writeTarget(c, target, lit)
		case isWriteOp(r.Op):
			if lit && harmlessSinks[target] {
				continue
			}
			w.writeTarget(c, target, lit)
		default:
			c.ReadOnly = false
			c.reason("the redirection is not understood")
		}
	}
}

func (w *walker) writeTarget(c *Command, target string, lit bool) {
	c.ReadOnly = false
	c.Writes = true
	if !lit {
		c.FileOp = false
		c.WriteTargets = append(c.WriteTargets, "")
		c.reason("writes to a file whose name is not a literal")
		return
	}
	c.WriteTargets = append(c.WriteTargets, w.abs(target))
	c.reason("writes to " + target)
}

func (w *walker) abs(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if w.a.home != "" {
			p = filepath.Join(w.a.home, strings.TrimPrefix(p, "~"))
		}
	}
	if filepath.IsAbs(p) || w.a.cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(w.a.cwd, p)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func riskyVarName(name string) bool {
	return name != strings.ToLower(name) || strings.HasPrefix(name, "_")
}
