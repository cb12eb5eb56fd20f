package permission

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/tandem-agent/tandem/internal/gitrepo"
	"github.com/tandem-agent/tandem/internal/permission/shell"
)

// judgeBash applies rules part by part: any part hitting a deny rule denies
// the whole command; every other part must be allowed by a rule or be
// provably read-only, or the command asks (explore: is denied).
func (e *Engine) judgeBash(mode Mode, command, cwd string) verdict {
	an, err := shell.AnalyzeIn(command, shell.Env{Cwd: cwd, Home: e.opts.HomeDir, Secrets: e.opts.SecretFiles})
	cmds := an.Commands
	if err != nil {
		// Not understood: rules still see every plausible piece.
		cmds = roughSplit(command)
	}
	if r, ok := e.bashRule(ActionDeny, command, cmds); ok {
		return verdict{action: ActionDeny, rule: r.String(), reason: "denied by rule " + ruleLabel(r)}
	}
	if err != nil {
		v := verdict{action: ActionAsk, reason: "the command could not be analysed (" + err.Error() + ")", noAlways: true}
		if mode == Explore {
			v.action = ActionDeny
		}
		return v
	}
	v := verdict{action: ActionAllow}
	if len(cmds) == 0 {
		v.rule = "read-only"
		return v
	}
	exact, exactOK := e.exactAllow(command)
	for _, c := range cmds {
		cv := e.judgeCommand(mode, c, cwd)
		if exactOK && mode != Explore && cv.action == ActionAsk && cv.rule == "" && !strings.Contains(cv.reason, "protected path") {
			// The user approved this exact command line: its parts that
			// would only have asked for want of a rule run.
			cv = verdict{action: ActionAllow, rule: exact.String()}
		}
		v.raise(cv)
	}
	if v.action == ActionAllow && v.rule == "" {
		v.rule = "read-only"
	}
	return v
}

func (e *Engine) judgeCommand(mode Mode, c shell.Command, cwd string) verdict {
	one := []shell.Command{c}
	label := c.Text
	if label == "" {
		label = c.String()
	}
	if v, ok := e.fileRulesOnShell(c, cwd, label); ok {
		return v
	}
	if r, ok := e.bashRule(ActionAsk, "", one); ok {
		return verdict{action: ActionAsk, rule: r.String(), reason: "rule " + ruleLabel(r) + " asks before `" + label + "`", noAlways: true, firm: true}
	}
	vetGit := false
	if c.ReadOnly && len(c.GitDirs) > 0 {
		if why := e.gitConfigRisk(c.GitDirs); why != "" {
			c.ReadOnly = false
			c.Reasons = append(c.Reasons, why)
			vetGit = true
		}
	}
	protected, pwhy, outside := e.writeTargets(c)
	if protected == "" && !c.ReadOnly {
		// A program that may change files without saying which (`sed -i`,
		// `patch`, a script) and names a protected path asks too: trust
		// runs such programs, and what it names is what it is likely to
		// change.
		protected, pwhy = e.namedProtected(c, cwd)
	}
	if protected != "" && mode != Explore {
		return verdict{action: ActionAsk, reason: "`" + label + "` writes protected path " + protected + " (" + pwhy + ")", noAlways: true, firm: true}
	}
	if c.ReadOnly && !c.Sensitive {
		return verdict{action: ActionAllow}
	}
	// Allow rules never make explore mode run what is not read-only.
	if r, ok := e.bashRule(ActionAllow, "", one); ok && mode != Explore {
		return verdict{action: ActionAllow, rule: r.String()}
	}
	why := strings.Join(c.Reasons, "; ")
	if why == "" {
		why = "not provably read-only"
	}
	switch {
	case mode == Explore:
		return verdict{action: ActionDeny, rule: "mode:explore", reason: "explore mode is read-only: `" + label + "`: " + why}
	case mode == Trust && outside == "" && !c.Sensitive:
		return verdict{action: ActionAllow, rule: "mode:trust"}
	case mode == AcceptEdits && c.FileOp && outside == "" && !c.Sensitive:
		return verdict{action: ActionAllow, rule: "mode:acceptEdits"}
	}
	if outside != "" {
		why = "writes " + outside + ", outside the workspace; " + why
	}
	v := verdict{action: ActionAsk, reason: "`" + label + "`: " + why}
	if vetGit {
		// "Always" would let every repository's configuration run.
		v.noAlways = true
		return v
	}
	if s, ok := bashSuggestion(c); ok {
		v.suggest = []Rule{s}
	} else {
		v.noAlways = true
	}
	return v
}

// gitConfigRisk vets the repositories a read-only git command may use: a
// repository whose own configuration names a program (core.fsmonitor,
// diff.external, a textconv or filter driver, ...) makes it not read-only.
func (e *Engine) gitConfigRisk(dirs []string) string {
	for _, d := range dirs {
		risks, err := gitrepo.RepoConfigRisks(context.Background(), d)
		if err != nil {
			return "git's configuration could not be checked: " + err.Error()
		}
		if len(risks) > 0 {
			return fmt.Sprintf("the git repository at %s has configuration that runs programs (%s), so git there is not read-only", d, strings.Join(risks, "; "))
		}
	}
	return ""
}

// exactAllow finds an allow rule naming the whole command line exactly
// (no wildcard), as `--allowedTools 'Bash(ls | xargs rm)'` does. A pattern
// with a wildcard never matches the whole line: `ls:*` must not approve
// `ls | xargs rm`.
func (e *Engine) exactAllow(command string) (Rule, bool) {
	command = strings.TrimSpace(command)
	return e.strongest(func(r Rule) bool {
		return r.Action == ActionAllow && r.matchesTool("Bash", nil) && r.Pattern != "" &&
			!strings.Contains(r.Pattern, "*") && r.Pattern == command
	})
}

// writeTargets returns the first protected target (and why it is) and
// the first target that may lie outside the roots ("unknown" for a target
// that is not a literal; a file with more than one hard link, whose other
// names may lie anywhere, counts as outside).
func (e *Engine) writeTargets(c shell.Command) (protected, why, outside string) {
	for _, t := range c.WriteTargets {
		if t == "" {
			if outside == "" {
				outside = "a file whose name is computed"
			}
			continue
		}
		resolved, inside, err := ResolveInRoots(e.roots, t)
		if err != nil {
			resolved = t
		}
		if protected == "" {
			if p, w := e.protected(resolved, t); p != "" {
				protected, why = t, w
			}
		}
		if outside == "" && (!inside || err != nil) {
			outside = t
		}
		if outside == "" && extraLinks(resolved) {
			outside = t + " (a file with other hard links, which may lie outside the workspace)"
		}
	}
	return protected, why, outside
}

// namedProtected returns the first operand of c (resolved from cwd) that
// is a protected path, and why.
func (e *Engine) namedProtected(c shell.Command, cwd string) (string, string) {
	if len(c.Argv) < 2 {
		return "", ""
	}
	for _, a := range c.Argv[1:] {
		if i := strings.IndexByte(a, '='); strings.HasPrefix(a, "--") && i > 0 {
			a = a[i+1:] // --out=PATH
		} else if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		abs := a
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, abs)
		}
		resolved, _, err := ResolveInRoots(e.roots, abs)
		if err != nil {
			resolved = abs
		}
		if p, why := e.protected(resolved, filepath.Clean(abs)); p != "" {
			return a, why
		}
	}
	return "", ""
}

// bashRule finds the strongest rule with the given action matching the
// whole command or any part (in several spellings).
func (e *Engine) bashRule(action Action, whole string, cmds []shell.Command) (Rule, bool) {
	forms := []string{}
	if whole != "" {
		forms = append(forms, strings.TrimSpace(whole))
	}
	var argvs [][]string
	for _, c := range cmds {
		if len(c.Argv) == 0 {
			forms = append(forms, c.Text)
			continue
		}
		forms = append(forms, c.String())
		if c.Program != "" && c.Program != c.Argv[0] {
			forms = append(forms, strings.Join(append([]string{c.Program}, c.Argv[1:]...), " "))
		}
		argvs = append(argvs, append([]string{c.Program}, c.Argv[1:]...))
		if c.Program == "git" {
			forms = append(forms, strings.Join(gitWithoutGlobals(c.Argv[1:]), " "))
		}
	}
	return e.strongest(func(r Rule) bool {
		if r.Action != action || !r.matchesTool("Bash", nil) {
			return false
		}
		for _, f := range forms {
			if matchCommand(r.Pattern, f) {
				return true
			}
		}
		if action == ActionAllow {
			return false // loose matching only ever tightens
		}
		for _, argv := range argvs {
			if flagMatch(r.Pattern, argv) {
				return true
			}
		}
		return false
	})
}

// longAliases map long options to the short letter they equal, for the
// programs deny rules most often name.
var longAliases = map[string]string{"--recursive": "r", "--force": "f", "-R": "r", "--dir": "d", "--verbose": "v"}

// flagMatch matches deny/ask patterns on parsed flags, so that a rule for
// `rm -rf *` also stops `rm -fr /`, `rm -r -f /` and `rm --recursive
// --force /`: the program must match, the pattern's flags must all be
// present, and the pattern's operands must start the command's operands.
func flagMatch(pattern string, argv []string) bool {
	if pattern == "" || len(argv) == 0 {
		return false
	}
	open := false
	switch {
	case strings.HasSuffix(pattern, ":*"):
		pattern, open = strings.TrimSuffix(pattern, ":*"), true
	case strings.HasSuffix(pattern, " *"):
		pattern, open = strings.TrimSuffix(pattern, " *"), true
	}
	if strings.ContainsAny(pattern, "*") {
		return false
	}
	pw := strings.Fields(pattern)
	if len(pw) == 0 || filepath.Base(pw[0]) != argv[0] {
		return false
	}
	pf, po := splitFlags(pw[1:])
	cf, co := splitFlags(argv[1:])
	for f := range pf {
		if !cf[f] {
			return false
		}
	}
	if len(po) > len(co) || (!open && (len(po) != len(co) || len(pf) != len(cf))) {
		return false
	}
	for i := range po {
		if po[i] != co[i] {
			return false
		}
	}
	return true
}

var shortCluster = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-[A-Za-z]+$`) })

func splitFlags(args []string) (map[string]bool, []string) {
	flags := map[string]bool{}
	var ops []string
	for i, a := range args {
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			return flags, ops
		case longAliases[a] != "":
			flags[longAliases[a]] = true
		case shortCluster().MatchString(a):
			for _, ch := range a[1:] {
				flags[string(ch)] = true
			}
		case strings.HasPrefix(a, "--"):
			flags[a] = true
		default:
			ops = append(ops, a)
		}
	}
	return flags, ops
}

// roughSplit cuts a command the parser rejected at operators, so that deny
// rules still see each piece.
func roughSplit(command string) []shell.Command {
	seps := regexp.MustCompile(`&&|\|\||[;|&\n\r]|\$\(|` + "`" + `|\)`)
	var out []shell.Command
	for _, piece := range seps.Split(command, -1) {
		fields := strings.Fields(piece)
		if len(fields) == 0 {
			continue
		}
		for i, f := range fields {
			fields[i] = strings.NewReplacer(`\`, "", `'`, "", `"`, "").Replace(f)
		}
		out = append(out, shell.Command{Argv: fields, Text: strings.TrimSpace(piece), Program: filepath.Base(fields[0])})
	}
	return out
}

// gitWithoutGlobals drops git's global options so that a rule for
// `git clean:*` also matches `git -C . --no-pager clean -fd`.
func gitWithoutGlobals(args []string) []string {
	i := 0
	for i < len(args) {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" || a == "--config-env":
			i += 2
		case strings.HasPrefix(a, "-"):
			i++
		default:
			return append([]string{"git"}, args[i:]...)
		}
	}
	return []string{"git"}
}

// fileRulesOnShell applies the file tools' deny and ask rules to the paths
// a shell command names, so `cat secrets/x` cannot read what
// Read(./secrets/**) denies, nor `rm docs/a` remove what Edit(/docs/**)
// denies. Every operand that is not an option counts as a path the command
// may read; WriteTargets are paths it writes.
func (e *Engine) fileRulesOnShell(c shell.Command, cwd, label string) (verdict, bool) {
	if cwd == "" {
		cwd = e.opts.WorkDir
	}
	check := func(tool, p string) (verdict, bool) {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, abs)
		}
		abs = filepath.Clean(abs)
		resolved, _, err := ResolveInRoots(e.roots, abs)
		if err != nil {
			resolved = abs
		}
		r, ok := e.strongest(func(r Rule) bool {
			return (r.Action == ActionDeny || r.Action == ActionAsk) && r.Pattern != "" && r.matchesTool(tool, nil) &&
				(r.matchPath(resolved, e.opts.WorkDir, e.opts.HomeDir) || r.matchPath(abs, e.opts.WorkDir, e.opts.HomeDir))
		})
		if !ok {
			return verdict{}, false
		}
		if r.Action == ActionDeny {
			return verdict{action: ActionDeny, rule: r.String(), reason: "`" + label + "` touches " + p + ", denied by rule " + ruleLabel(r)}, true
		}
		return verdict{action: ActionAsk, rule: r.String(), reason: "`" + label + "` touches " + p + "; rule " + ruleLabel(r) + " asks", noAlways: true}, true
	}
	var out verdict
	found := false
	for _, t := range c.WriteTargets {
		for _, tool := range []string{"Edit", "Write"} {
			if v, ok := check(tool, t); ok {
				out.raise(v)
				found = true
			}
		}
	}
	if len(c.Argv) > 1 {
		for _, a := range c.Argv[1:] {
			if a == "" || strings.HasPrefix(a, "-") {
				continue
			}
			if v, ok := check("Read", a); ok {
				out.raise(v)
				found = true
			}
		}
	}
	return out, found
}
