package shell

import (
	"strings"
)

// unwrapInner finds the command a wrapper runs (`xargs rm`, `sudo rm`,
// `env X=1 rm`, `find -exec rm {} +`, `bash -c 'rm x'`, `eval "rm x"`) and
// judges it as a command of its own, so that deny rules and the read-only
// verdict see it. Transparent wrappers (command, builtin, nice, timeout,
// stdbuf, time, env without assignments) stay read-only when their inner
// command is; the others never are.
func (w *walker) unwrapInner(c *Command) {
	if len(c.Argv) == 0 || c.Program == "" {
		return
	}
	args := c.Argv[1:]
	switch c.Program {
	case "command", "builtin":
		if len(args) > 0 && (args[0] == "-v" || args[0] == "-V") {
			return
		}
		if len(args) > 0 && args[0] == "-p" {
			args = args[1:]
		}
		w.inner(c, args, c.Program, true)
	case "nice":
		w.inner(c, skipOptions(args, setOf("-n", "--adjustment")), "nice", true)
	case "timeout":
		rest := skipOptions(args, setOf("-s", "--signal", "-k", "--kill-after"))
		if len(rest) > 0 {
			rest = rest[1:] // the duration
		}
		w.inner(c, rest, "timeout", true)
	case "stdbuf":
		w.inner(c, skipOptions(args, setOf("-i", "-o", "-e")), "stdbuf", true)
	case "time":
		if hasShortFlag(args, 'o') || hasShortFlag(args, 'a') || hasLong(args, "--output", 5) {
			c.Writes = true
			c.unsafe("time -o writes a file")
		}
		w.inner(c, skipOptions(args, setOf("-o", "-f", "--format", "--output")), "time", true)
	case "env":
		rest := skipOptions(args, setOf("-u", "--unset", "-C", "--chdir"))
		for len(rest) > 0 && strings.Contains(rest[0], "=") {
			rest = rest[1:]
		}
		for i, a := range args {
			if (a == "-S" || strings.HasPrefix(a, "--split-string")) && i+1 < len(args) {
				w.nested(c, args[i+1], "env -S")
				return
			}
		}
		w.inner(c, rest, "env", true)
	case "sudo", "doas", "runuser":
		w.inner(c, skipOptions(args, setOf("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group")), c.Program, false)
	case "xargs":
		w.inner(c, skipOptions(args, setOf("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file",
			"--delimiter", "--max-args", "--max-procs", "--max-lines", "--max-chars", "--replace", "--eof")), "xargs", false)
	case "exec":
		w.inner(c, skipOptions(args, setOf("-a")), "exec", false)
	case "nohup", "setsid", "unbuffer", "chroot", "strace", "ltrace":
		rest := skipOptions(args, setOf("-o", "-e", "-p", "-s", "-u"))
		if c.Program == "chroot" && len(rest) > 0 {
			rest = rest[1:]
		}
		w.inner(c, rest, c.Program, false)
	case "eval":
		w.nested(c, strings.Join(args, " "), "eval")
	case "watch":
		w.nested(c, strings.Join(skipOptions(args, setOf("-n", "--interval", "-d", "-q")), " "), "watch")
	case "bash", "sh", "zsh", "dash", "ksh", "su":
		if script, ok := dashC(args); ok {
			w.nested(c, script, c.Program+" -c")
		}
	case "find":
		w.findExec(c, args)
	}
}

// inner judges argv as a command run by the wrapper c.
func (w *walker) inner(c *Command, argv []string, via string, transparent bool) {
	if len(argv) == 0 {
		return
	}
	if !transparent && c.ReadOnly {
		c.unsafe(via + " runs another command")
	}
	c.Wrapper = true
	in := Command{Argv: argv, Text: strings.Join(argv, " "), Via: via, ReadOnly: true}
	kinds := make([]wordKind, len(argv))
	if c.Dynamic {
		// The wrapper's words were not all literal; the inner ones may
		// not be either.
		for i := range kinds {
			kinds[i] = wordDynamic
		}
		in.Dynamic = true
	}
	in.Program, _ = programName(argv[0])
	if kinds[0] == wordDynamic {
		in.ReadOnly = false
		in.reason("the program name is not a literal")
	} else {
		w.judge(&in, kinds)
	}
	w.a.cmds = append(w.a.cmds, in)
	w.unwrapInner(&in)
}

// nested parses a script a wrapper runs (bash -c, eval) and judges its
// commands; an unparseable script stays a reason to ask.
func (w *walker) nested(c *Command, script, via string) {
	if c.ReadOnly {
		c.unsafe(via + " runs a shell script")
	}
	c.Wrapper = true
	if c.Dynamic {
		return
	}
	if err := w.a.script(script, via, w.depth+1); err != nil {
		c.reason(via + " script: " + err.Error())
	}
}

func (w *walker) findExec(c *Command, args []string) {
	for i := 0; i < len(args); i++ {
		if !findExec[args[i]] {
			continue
		}
		j := i + 1
		for j < len(args) && args[j] != ";" && args[j] != "+" {
			j++
		}
		w.inner(c, args[i+1:j], "find "+args[i], false)
		i = j
	}
}

// dashC returns the script of `bash -c SCRIPT` (also -lc, -ec, ...).
func dashC(args []string) (string, bool) {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			if strings.HasPrefix(a, "--") {
				continue
			}
			return "", false
		}
		if strings.ContainsRune(a[1:], 'c') && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// skipOptions drops leading options; those in withValue consume the next
// word too (unless given as --opt=value or glued -oVALUE).
func skipOptions(args []string, withValue map[string]bool) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args[i+1:]
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return args[i:]
		}
		if withValue[a] {
			i++
		}
	}
	return nil
}

// fileOp records what plain file programs write, so that trust and
// acceptEdits can check the targets against the workspace.
func (w *walker) fileOp(c *Command, name string, clean bool) {
	if !writePrograms[name] && name != "dd" {
		return
	}
	c.Writes = true
	ops := operands(c.Argv[1:])
	var targets []string
	switch name {
	case "dd":
		for _, a := range c.Argv[1:] {
			if strings.HasPrefix(a, "of=") {
				targets = append(targets, a[3:])
			}
		}
		c.unsafe("dd writes files or devices")
	case "cp", "ln", "install", "rsync":
		if len(ops) > 0 {
			targets = ops[len(ops)-1:]
		}
	case "chmod", "chown", "chgrp":
		if len(ops) > 0 {
			targets = ops[1:]
		}
	default: // mv removes its sources; the others touch every operand
		targets = ops
	}
	for _, t := range targets {
		c.WriteTargets = append(c.WriteTargets, w.abs(t))
	}
	c.FileOp = clean && fileOpPrograms[name] && len(targets) > 0
}
