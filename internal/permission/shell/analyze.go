// Package shell judges a Bash command before it runs: it parses the command
// with mvdan.cc/sh into an AST, finds every simple command wherever it
// stands (pipelines, lists, subshells, substitutions, loop bodies, function
// bodies, wrapped commands such as `xargs rm` or `bash -c '...'`), rebuilds
// each argv after quote removal and decides whether each one is provably
// read-only. It never decides allow or deny itself: the permission engine
// combines this analysis with rules and modes.
package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxCommandBytes bounds what Analyze accepts. A longer command is refused
// with an error (the engine then asks or denies); nothing is skipped silently.
const MaxCommandBytes = 256 << 10

// maxNesting bounds how deep `bash -c` / `eval` strings are re-parsed.
const maxNesting = 8

// Command is one simple command found in the script.
type Command struct {
	// Argv is the command after quote removal. Words that are not literal
	// (expansions, substitutions) appear as their source text and make
	// Dynamic true.
	Argv []string
	// Text is the command's source text (for summaries).
	Text string
	// Program is the base name of argv[0] ("/bin/rm" → "rm"); empty when
	// argv[0] is not literal.
	Program string
	// Via names the wrapper this command was found inside ("xargs",
	// "bash -c", "eval", "find -exec", ...); empty for top-level commands.
	Via string
	// ReadOnly is true when the command provably changes nothing and runs
	// no other program.
	ReadOnly bool
	// Writes is true when the command writes files (redirection to a file,
	// a known writing program).
	Writes bool
	// WriteTargets are the paths the command is known to write or remove,
	// resolved against the command's folder when relative; "" for an
	// unknown target.
	WriteTargets []string
	// FileOp is true for plain file operations (mkdir, touch, cp, mv, tee,
	// output redirection) whose WriteTargets are all known: acceptEdits may
	// allow these inside the workspace.
	FileOp bool
	// Sensitive is true when the command reads a credential-like path.
	Sensitive bool
	// Dynamic is true when some word is not a literal (expansion, glob,
	// brace expansion, substitution).
	Dynamic bool
	// Wrapper is true for interpreters and wrappers (bash -c, python,
	// env, sudo, xargs, eval, exec, ...): "allow always" is never offered.
	Wrapper bool
	// GitDirs, for a read-only git command, are the folders it may run in:
	// git reads the configuration of the repository it finds there, which
	// the caller must vet (gitrepo.RepoConfigRisks) before calling it read-only.
	GitDirs []string
	// Reasons explain why the command is not read-only (or is sensitive).
	Reasons []string
	// off is the command's offset in the top-level source.
	off int
}

func (c *Command) reason(r string) {
	c.Reasons = append(c.Reasons, r)
}

// String is the argv joined by spaces, as rules see it.
func (c Command) String() string { return strings.Join(c.Argv, " ") }

// Analysis is the verdict for a whole command line.
type Analysis struct {
	Commands []Command
}

// ReadOnly is true when every part is provably read-only and none reads a
// sensitive path: the command may run without asking.
func (a Analysis) ReadOnly() bool {
	if len(a.Commands) == 0 {
		return true
	}
	for _, c := range a.Commands {
		if !c.ReadOnly || c.Sensitive {
			return false
		}
	}
	return true
}

// Reasons lists every part's reasons, prefixed with the part.
func (a Analysis) Reasons() []string {
	var out []string
	for _, c := range a.Commands {
		for _, r := range c.Reasons {
			label := c.Text
			if label == "" {
				label = c.String()
			}
			out = append(out, fmt.Sprintf("%s: %s", label, r))
		}
	}
	return out
}

// Analyze parses command (as bash would) and judges every simple command
// in it. cwd resolves relative paths; home expands `~`. A parse error or an
// over-long command returns an error: the caller must treat the command as
// not provably safe.
func Analyze(command, cwd, home string) (Analysis, error) {
	return AnalyzeIn(command, Env{Cwd: cwd, Home: home})
}

// Env is where a command is judged.
type Env struct {
	// Cwd resolves relative paths; Home expands `~`.
	Cwd, Home string
	// Secrets are files beyond the credential patterns that a command
	// reading them makes sensitive: tandem's own (config.Paths.SecretFiles),
	// as secretpaths.Canonical returns them.
	Secrets []string
}

// AnalyzeIn is Analyze with the whole environment.
func AnalyzeIn(command string, env Env) (Analysis, error) {
	if len(command) > MaxCommandBytes {
		return Analysis{}, fmt.Errorf("command is %d bytes, over the %d-byte limit the validator reads", len(command), MaxCommandBytes)
	}
	a := &analyzer{cwd: env.Cwd, home: env.Home, secrets: env.Secrets}
	if err := a.script(command, "", 0); err != nil {
		return Analysis{}, err
	}
	a.resolveGitDirs()
	return Analysis{Commands: a.cmds}, nil
}

type analyzer struct {
	cwd, home string
	secrets   []string
	cmds      []Command
	// repeating are the [start, end) offsets of top-level loops and
	// function bodies: a cd there may run any number of times.
	repeating [][2]int
}

func (a *analyzer) script(src, via string, depth int) error {
	if depth > maxNesting {
		return fmt.Errorf("commands nested more than %d levels deep", maxNesting)
	}
	if strings.ContainsRune(src, 0) {
		return fmt.Errorf("command contains a NUL byte")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return fmt.Errorf("parse command: %w", err)
	}
	w := &walker{a: a, src: src, via: via, depth: depth}
	if strings.ContainsRune(src, '\r') {
		// bash keeps a carriage return inside a word; other parsers split on
		// it. Either way the user should see it.
		a.cmds = append(a.cmds, Command{Text: "carriage return", Via: via, Reasons: []string{"the command contains a carriage return"}})
	}
	syntax.Walk(f, w.visit)
	return w.err
}
