package shell

import (
	"regexp"
	"strings"
	"sync"
)

var findExec = setOf("-exec", "-execdir", "-ok", "-okdir")
var findWrite = setOf("-delete", "-fprint", "-fprint0", "-fprintf", "-fls")

func checkFind(c *Command, args []string) {
	for _, a := range args {
		switch {
		case findExec[a]:
			c.unsafe("find " + a + " runs a program")
		case findWrite[a]:
			c.Writes = true
			c.unsafe("find " + a + " writes or deletes files")
		}
	}
}

// rgValueShort are rg's short options that take a value: the rest of a
// cluster after one of them is that value, not more flags.
const rgValueShort = "efgtTmABCjMrE"

func checkRg(c *Command, args []string) {
	for _, a := range args {
		if a == "--" {
			return
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' {
			for i := 1; i < len(a); i++ {
				if a[i] == 'z' {
					c.unsafe("rg -z runs decompression programs")
					return
				}
				if strings.IndexByte(rgValueShort, a[i]) >= 0 {
					break
				}
			}
		}
	}
	for _, opt := range []string{"--pre", "--pre-glob", "--search-zip", "--hostname-bin"} {
		if hasLong(args, opt, len(opt)) {
			c.unsafe("rg " + opt + " runs a program")
			return
		}
	}
}

func checkFd(c *Command, args []string) {
	if hasShortFlag(args, 'x') || hasShortFlag(args, 'X') || hasLong(args, "--exec", 6) || hasLong(args, "--exec-batch", 7) {
		c.unsafe("fd --exec runs a program")
	}
}

func checkAwk(c *Command, args []string) {
	var programs []string
	sawProgram := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "-f"):
			c.unsafe("awk -f runs a program file that was not checked")
			return
		case a == "-i" || a == "-l" || strings.HasPrefix(a, "--include") || strings.HasPrefix(a, "--load") || a == "-E" || strings.HasPrefix(a, "--exec"):
			c.unsafe("awk " + a + " loads code that was not checked")
			return
		case a == "-e" || a == "--source":
			if i+1 < len(args) {
				programs = append(programs, args[i+1])
				sawProgram = true
				i++
			}
		case a == "-v" || a == "-F":
			i++
		case strings.HasPrefix(a, "-") && a != "-" && a != "--":
		default:
			if !sawProgram {
				programs = append(programs, a)
				sawProgram = true
			}
		}
	}
	for _, p := range programs {
		if why := awkUnsafe(p); why != "" {
			c.unsafe("awk program " + why)
			return
		}
	}
}

// Compiled on first use: start-up does not pay for them.
var (
	awkSystem = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bsystem\s*\(|@load|@include|\bgetline\b[^;}]*<`)
	})
	awkPrint = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bprintf?\b`) })
)

// awkUnsafe returns why an awk program may run commands or write files:
// system(), any pipe (`print | "cmd"`, `"cmd" | getline`), output
// redirection inside print statements, extension loading.
func awkUnsafe(p string) string {
	stripped := awkStripStrings(p)
	if awkSystem().MatchString(stripped) {
		return "calls system(), loads an extension or reads with getline"
	}
	if strings.Contains(strings.ReplaceAll(stripped, "||", ""), "|") {
		return "uses a pipe to or from a command"
	}
	for _, loc := range awkPrint().FindAllStringIndex(stripped, -1) {
		rest := stripped[loc[1]:]
		if end := strings.IndexAny(rest, ";}\n"); end >= 0 {
			rest = rest[:end]
		}
		if strings.Contains(rest, ">") {
			return "redirects print output to a file"
		}
	}
	return ""
}

// awkStripStrings blanks string literals so that their contents are not
// taken for code.
func awkStripStrings(p string) string {
	b := []byte(p)
	in := false
	for i := 0; i < len(b); i++ {
		switch {
		case in && b[i] == '\\' && i+1 < len(b):
			b[i], b[i+1] = ' ', ' '
			i++
		case b[i] == '"':
			in = !in
		case in:
			b[i] = ' '
		}
	}
	return string(b)
}
