package shell

import "strings"

// psQuiet are the ps options that choose which processes are listed
// without changing what is shown of them: ps with only these shows each
// process's name, never its arguments or environment. Anything else (a
// format such as -o args, -f, u, v, the BSD e that appends the
// environment, w that widens it) may show another process's command line
// (`tandem serve --token ...`) or environment (API keys): a sensitive read.
var psQuiet = setOf("-e", "-A", "-a", "-d", "-N", "--deselect", "-x", "x", "a", "ax", "-ax", "T", "r", "-T",
	"--no-headers", "--no-heading", "-H", "--forest")

// psValued are quiet options that take a value (a pid, user, tty or name).
var psValued = setOf("-p", "--pid", "-u", "-U", "--user", "-g", "-G", "-t", "--tty", "-C", "--ppid", "-s", "--sid", "q", "p", "U", "t")

func checkPs(c *Command, args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case psQuiet[a]:
		case psValued[a]:
			i++
		case strings.HasPrefix(a, "--pid=") || strings.HasPrefix(a, "--user=") || strings.HasPrefix(a, "--ppid="):
		default:
			c.Sensitive = true
			c.reason("ps " + a + " may show other processes' command lines or environment")
			return
		}
	}
}

// checkPgrep: -a/--list-full prints each match's command line, -f
// matches against it (each answer tells one more character of a secret).
func checkPgrep(c *Command, args []string) {
	for _, a := range args {
		if a == "--" {
			return
		}
		if a == "--list-full" || a == "--full" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "af")) {
			c.Sensitive = true
			c.reason("pgrep " + a + " reads other processes' command lines")
			return
		}
	}
}
