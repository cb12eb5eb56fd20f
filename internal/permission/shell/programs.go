package shell

import "strings"

// plainReaders read files or print facts and have no option that writes,
// runs another program or changes system state.
var plainReaders = setOf(
	"cat", "head", "tail", "wc", "ls", "pwd", "echo", "true", "false", ":",
	"whoami", "id", "uname", "cut", "tr", "nl", "paste", "rev", "seq", "stat",
	"which", "basename", "dirname", "realpath", "readlink", "du", "df", "diff",
	"cmp", "comm", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum",
	"sha512sum", "b2sum", "cksum", "tac", "numfmt", "expr", "test", "[",
	"column", "fold", "fmt", "od", "hexdump", "strings", "grep", "egrep",
	"fgrep", "jq", "printenv", "ps", "free", "uptime", "nproc", "arch",
	"groups", "tty", "locale", "getconf", "sleep", "cd", "pushd", "popd",
	"dirs", "type", "whereis", "join", "expand", "unexpand", "look", "wait",
	"lsb_release", "file", "pgrep", "env", "printf", "date", "uniq", "xxd",
	"tree", "hostname", "base64", "zcat", "gzcat", "bzcat", "xzcat",
)

// globSafe programs may take unquoted globs: no file name a glob could
// produce turns into an option that writes or runs code.
var globSafe = setOf(
	"cat", "head", "tail", "wc", "ls", "grep", "egrep", "fgrep", "stat", "du",
	"nl", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum",
	"tac", "rev", "cut", "paste", "diff", "cmp", "echo", "basename", "dirname",
	"realpath", "readlink", "strings", "od", "hexdump", "cd", "test", "[",
)

// wrapperPrograms run another command given as arguments; interpreters run
// code given as text or a script. Neither is ever learned by "allow always".
var wrapperPrograms = setOf(
	"env", "sudo", "doas", "xargs", "eval", "exec", "command", "builtin",
	"nice", "nohup", "timeout", "stdbuf", "time", "setsid", "watch", "unbuffer",
	"strace", "ltrace", "chroot", "flock", "parallel", "ssh", "su", "runuser",
	"script", "busybox", "npx", "bunx", "pnpx", "uvx",
)

var interpreters = setOf(
	"bash", "sh", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "python",
	"python2", "python3", "node", "deno", "bun", "perl", "ruby", "php", "lua",
	"luajit", "pwsh", "powershell", "osascript", "tclsh", "awk", "gawk", "mawk",
	"nawk", "Rscript", "julia",
)

// fileOpPrograms only create, copy or move files named on the command line.
var fileOpPrograms = setOf("mkdir", "touch", "cp", "mv", "tee", "rmdir", "ln")

// writePrograms change files named on the command line.
var writePrograms = setOf("rm", "rmdir", "mkdir", "touch", "cp", "mv", "tee",
	"ln", "chmod", "chown", "chgrp", "truncate", "install", "shred", "unlink", "rsync")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// programChecks hold the programs that are read-only only without some
// options. Each marks c not read-only (with a reason) when an argument
// writes or runs code.
var programChecks = map[string]func(c *Command, args []string){
	"find":   checkFind,
	"rg":     checkRg,
	"fd":     checkFd,
	"fdfind": checkFd,
	"sed":    checkSed,
	"awk":    checkAwk,
	"gawk":   checkAwk,
	"mawk":   checkAwk,
	"nawk":   checkAwk,
	"git":    checkGit,
	"sort":   checkSort,
	"man":    checkMan,
	"printf": checkPrintf,
	"date":   checkDate,
	"uniq":   func(c *Command, args []string) { maxOperands(c, "uniq", args, 1) },
	"xxd":    checkXxd,
	"tree": func(c *Command, args []string) {
		denyShortFlag(c, "tree", args, 'o', "-o writes the listing to a file")
	},
	"file":     func(c *Command, args []string) { denyShortFlag(c, "file", args, 'C', "-C compiles a magic file") },
	"hostname": func(c *Command, args []string) { maxOperands(c, "hostname", args, 0) },
	"base64":   checkBase64,
	"env":      checkEnv,
	"ps":       checkPs,
	"pgrep":    checkPgrep,
	// Transparent wrappers: the command they run is judged on its own.
	"command": func(*Command, []string) {},
	"builtin": func(*Command, []string) {},
	"nice":    func(*Command, []string) {},
	"timeout": func(*Command, []string) {},
	"stdbuf":  func(*Command, []string) {},
	"time":    func(*Command, []string) {},
}

func checkProgram(c *Command, name string, args []string) {
	if f, ok := programChecks[name]; ok {
		f(c, args)
		return
	}
	if plainReaders[name] {
		return
	}
	c.ReadOnly = false
	switch {
	case interpreters[name]:
		c.reason(name + " runs arbitrary code")
	case wrapperPrograms[name]:
		c.reason(name + " runs another command")
	case writePrograms[name]:
		c.Writes = true
		c.reason(name + " changes files")
	default:
		c.reason(name + " is not on the read-only list")
	}
}

func (c *Command) unsafe(reason string) {
	c.ReadOnly = false
	c.reason(reason)
}

// operands returns the arguments that are not options (everything after
// "--" counts as an operand).
func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

func maxOperands(c *Command, name string, args []string, n int) {
	if len(operands(args)) > n {
		c.Writes = true
		c.unsafe(name + " with that many operands writes or changes state")
	}
}

// hasShortFlag reports whether letter appears in a cluster of short
// options (`-fo`), stopping at "--".
func hasShortFlag(args []string, letter byte) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

func denyShortFlag(c *Command, name string, args []string, letter byte, why string) {
	if hasShortFlag(args, letter) {
		c.unsafe(name + " " + why)
	}
}

// hasLong reports an exact long option or its `--opt=value` form; GNU
// tools accept unambiguous prefixes, so prefixes down to minLen count too.
func hasLong(args []string, opt string, minLen int) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		name := a
		if i := strings.IndexByte(a, '='); i >= 0 {
			name = a[:i]
		}
		if name == opt || (len(name) >= minLen && strings.HasPrefix(opt, name)) {
			return true
		}
	}
	return false
}

func checkPrintf(c *Command, args []string) {
	if len(args) > 0 && strings.HasPrefix(args[0], "-v") {
		c.unsafe("printf -v assigns a shell variable")
	}
}

func checkDate(c *Command, args []string) {
	if hasShortFlag(args, 's') || hasLong(args, "--set", 4) {
		c.unsafe("date --set changes the system clock")
	}
}

func checkXxd(c *Command, args []string) {
	if hasShortFlag(args, 'r') || len(operands(args)) > 1 {
		c.Writes = true
		c.unsafe("xxd -r or an output operand writes a file")
	}
}

func checkBase64(c *Command, args []string) {
	if hasShortFlag(args, 'o') || hasLong(args, "--output", 5) {
		c.Writes = true
		c.unsafe("base64 -o writes a file")
	}
}

func checkSort(c *Command, args []string) {
	switch {
	case hasShortFlag(args, 'o') || hasLong(args, "--output", 5):
		c.Writes = true
		c.unsafe("sort -o writes a file")
	case hasLong(args, "--compress-program", 4):
		c.unsafe("sort --compress-program runs a program")
	case hasLong(args, "--files0-from", 4):
		c.unsafe("sort --files0-from reads a list of files")
	}
}

func checkMan(c *Command, args []string) {
	if hasShortFlag(args, 'P') || hasShortFlag(args, 'H') || hasLong(args, "--pager", 4) ||
		hasLong(args, "--html", 4) || hasShortFlag(args, 'R') || hasLong(args, "--recode", 4) {
		c.unsafe("man -P/--pager/-H runs a program")
	}
}

func checkEnv(c *Command, args []string) {
	for _, a := range args {
		if strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
			c.unsafe("env sets " + a[:strings.IndexByte(a, '=')] + " for the command")
			return
		}
		if a == "-S" || strings.HasPrefix(a, "--split-string") || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "SC")) {
			c.unsafe("env -S/-C changes how the command runs")
			return
		}
	}
}
