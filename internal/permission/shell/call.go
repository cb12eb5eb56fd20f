package shell

import (
	"path"
	"strings"

	"github.com/tandem-agent/tandem/internal/secretpaths"
	"mvdan.cc/sh/v3/syntax"
)

// systemDirs hold the programs a bare name would find; a path elsewhere
// (`./ls`) is some other program.
var systemDirs = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true,
}

func (w *walker) call(call *syntax.CallExpr) *Command {
	c := &Command{Text: w.text(call), Via: w.via, ReadOnly: true, off: int(call.Pos().Offset())}
	for _, as := range call.Assigns {
		name := ""
		if as.Name != nil {
			name = as.Name.Value
		}
		c.ReadOnly = false
		if len(call.Args) == 0 {
			c.reason("assigns " + name + ", which later commands may use")
		} else {
			c.reason("sets " + name + "= for the command")
		}
	}
	if len(call.Args) == 0 {
		return c
	}
	kinds := make([]wordKind, len(call.Args))
	for i, word := range call.Args {
		s, k := classify(word)
		if k == wordDynamic {
			s = wordText(word)
			c.Dynamic = true
		}
		kinds[i] = k
		c.Argv = append(c.Argv, s)
	}
	if kinds[0] != wordLiteral {
		c.ReadOnly = false
		c.reason("the program name is not a literal")
		return c
	}
	c.Program, _ = programName(c.Argv[0])
	w.judge(c, kinds)
	return c
}

// programName returns the base name of argv0 and whether it names the
// system program of that name (bare name or a standard system folder).
func programName(argv0 string) (string, bool) {
	if !strings.Contains(argv0, "/") {
		return argv0, true
	}
	return path.Base(argv0), systemDirs[path.Dir(path.Clean(argv0))]
}

// judge decides c.ReadOnly from the program tables.
func (w *walker) judge(c *Command, kinds []wordKind) {
	name, system := programName(c.Argv[0])
	if !system {
		c.ReadOnly = false
		c.reason("runs " + c.Argv[0] + ", which is not a known system program")
		return
	}
	for i, k := range kinds {
		if k == wordDynamic {
			c.ReadOnly = false
			c.reason("argument " + c.Argv[i] + " is expanded by the shell")
			break
		}
		if k == wordGlob && !globSafe[name] {
			c.ReadOnly = false
			c.reason("unquoted glob " + c.Argv[i] + " could expand to an option of " + name)
			break
		}
	}
	if wrapperPrograms[name] || interpreters[name] {
		c.Wrapper = true
	}
	clean := c.ReadOnly
	checkProgram(c, name, c.Argv[1:])
	w.checkSensitive(c)
	w.fileOp(c, name, clean)
}

// checkSensitive flags credential-like paths among the arguments of
// commands that would read them.
func (w *walker) checkSensitive(c *Command) {
	for _, arg := range c.Argv[1:] {
		cands := []string{arg}
		if i := strings.IndexByte(arg, '='); i >= 0 {
			cands = append(cands, arg[i+1:])
		}
		if strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && len(arg) > 2 {
			cands = append(cands, arg[2:])
		}
		for _, cand := range cands {
			if cand == "" {
				continue
			}
			if w.a.sensitive(w.abs(cand)) || secretpaths.GlobMayMatch(cand) {
				c.Sensitive = true
				c.reason("reads sensitive path " + arg)
				return
			}
		}
	}
}
