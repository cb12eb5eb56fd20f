package shell

import "strings"

// gitReadOnly are the subcommands that only read the repository. Each maps
// to a check of its arguments (nil: any arguments but the global unsafe
// ones).
var gitReadOnly = map[string]func(args []string) string{
	"status":        nil,
	"log":           nil,
	"diff":          nil,
	"show":          nil,
	"blame":         nil,
	"annotate":      nil,
	"rev-parse":     nil,
	"rev-list":      nil,
	"ls-files":      nil,
	"ls-tree":       nil,
	"cat-file":      nil,
	"describe":      nil,
	"shortlog":      nil,
	"show-ref":      nil,
	"for-each-ref":  nil,
	"merge-base":    nil,
	"name-rev":      nil,
	"count-objects": nil,
	"diff-tree":     nil,
	"diff-files":    nil,
	"diff-index":    nil,
	"whatchanged":   nil,
	"branch":        gitBranchList,
	"tag":           gitTagList,
	"remote":        gitRemoteList,
	// For commands with subcommands, the first argument is what the
	// subcommand table says; without one, git runs the default action,
	// which for `stash` is push (it takes the changes away).
	"stash":    gitSubcommands(gitDefaultWrites, "list", "show"),
	"worktree": gitSubcommands(gitDefaultWrites, "list"),
	"reflog":   gitSubcommands(gitDefaultReads, "show"),
	"notes":    gitSubcommands(gitDefaultReads, "list", "show"),
	"config":   gitConfigRead,
	"grep":     gitGrep,
}

// gitGlobalValue are global options that take the next word as a value.
var gitGlobalValue = setOf("-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--exec-path", "--config-env", "-c")

func checkGit(c *Command, args []string) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || strings.HasPrefix(a, "-c") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			c.unsafe("git -c sets configuration that can run programs")
			return
		case strings.HasPrefix(a, "--config-env") || strings.HasPrefix(a, "--exec-path"):
			c.unsafe("git " + a + " can run programs")
			return
		case a == "-p" || a == "--paginate":
			c.unsafe("git " + a + " runs a pager")
			return
		case a == "-C" || a == "--git-dir" || a == "--work-tree" || strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			// Another repository brings its own configuration, which may
			// name programs (core.fsmonitor).
			c.unsafe("git " + a + " uses another repository's configuration")
			return
		case gitGlobalValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		default:
			goto sub
		}
	}
	return // `git` alone, `git --version`: prints help
sub:
	name, rest := args[i], args[i+1:]
	check, ok := gitReadOnly[name]
	if !ok {
		c.unsafe("git " + name + " is not a read-only git command")
		return
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		for _, bad := range []string{"--output", "--ext-diff", "--textconv", "--exec", "--upload-pack", "--receive-pack", "--open-files-in-pager"} {
			if a == bad || strings.HasPrefix(a, bad+"=") {
				c.unsafe("git " + name + " " + bad + " writes files or runs programs")
				return
			}
		}
	}
	if check != nil {
		if why := check(rest); why != "" {
			c.unsafe("git " + name + " " + why)
		}
	}
}

func gitBranchList(args []string) string {
	for _, a := range args {
		switch {
		case a == "--list" || a == "-l" || a == "--show-current" || a == "-a" || a == "--all" ||
			a == "-r" || a == "--remotes" || a == "-v" || a == "-vv" || a == "--verbose" ||
			strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "--sort=") ||
			a == "--merged" || a == "--no-merged" || a == "--contains" || strings.HasPrefix(a, "--points-at") ||
			a == "--no-color" || a == "--color" || strings.HasPrefix(a, "--color="):
		default:
			return "with " + a + " changes branches"
		}
	}
	return ""
}

func gitTagList(args []string) string {
	listing := len(args) == 0
	for _, a := range args {
		if a == "-l" || a == "--list" {
			listing = true
		}
		if a == "-d" || a == "-a" || a == "-s" || a == "-f" || a == "-m" || a == "-F" || a == "--delete" {
			return "with " + a + " changes tags"
		}
	}
	if !listing {
		return "with a name creates a tag"
	}
	return ""
}

func gitRemoteList(args []string) string {
	if len(args) > 0 && args[0] == "get-url" {
		return ""
	}
	for _, a := range args {
		if a != "-v" && a != "--verbose" {
			return "with " + a + " changes or contacts remotes"
		}
	}
	return ""
}

// gitDefault says whether a git command run without a subcommand only
// reads (`git reflog` = `git reflog show`) or changes something (`git
// stash` = `git stash push`; `git worktree` alone is an error, judged as a
// change so that nothing new slips through).
type gitDefault bool

const (
	gitDefaultReads  gitDefault = true
	gitDefaultWrites gitDefault = false
)

func gitSubcommands(def gitDefault, allowed ...string) func([]string) string {
	return func(args []string) string {
		if len(args) == 0 {
			if def == gitDefaultReads {
				return ""
			}
			return "without a subcommand changes the repository"
		}
		for _, ok := range allowed {
			if args[0] == ok {
				return ""
			}
		}
		return args[0] + " is not read-only"
	}
}

func gitConfigRead(args []string) string {
	reading := false
	for _, a := range args {
		switch a {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list":
			reading = true
		case "--add", "--unset", "--unset-all", "--replace-all", "--edit", "-e", "set", "unset",
			"edit", "rename-section", "remove-section", "--rename-section", "--remove-section":
			return "with " + a + " changes configuration"
		}
	}
	if !reading {
		return "without --get/--list may change configuration"
	}
	return ""
}

func gitGrep(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-O") {
			return "-O opens files in a program"
		}
	}
	return ""
}
