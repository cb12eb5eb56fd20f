// Package gitrepo is what tandem knows of a repository's own git configuration:
// the entries that make git run a program (RepoConfigRisks) and the
// hardening read-only git commands run with (GitHardening). A leaf, so the
// system prompt's git status links no shell parser.
package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// A repository's own configuration can name programs that git runs on its
// own: `git status` runs core.fsmonitor, `git diff` runs diff.external and
// textconv drivers, any command that refreshes the index runs clean filters
// and the post-index-change hook. A workspace can hold such a repository
// (a folder with a config file, or a .git file pointing at one), so "git
// status is read-only" holds only for a repository whose config names no
// program. gitCommandKeys is the one list of the keys that do; compiled on
// first use, so start-up (tandem --version) does not pay for it.
var gitCommandKeys = sync.OnceValue(func() []gitCommandKeyRule {
	rules := []gitCommandKeyRule{
		{expr: `^core\.fsmonitor$`, boolOK: true},
		{expr: `^core\.(pager|editor|askpass|sshcommand|gitproxy|alternaterefscommand)$`},
		{expr: `^pager\..+$`, boolOK: true},
		{expr: `^sequence\.editor$`},
		{expr: `^diff\.external$`},
		{expr: `^diff\..+\.(textconv|command)$`},
		{expr: `^merge\..+\.driver$`},
		{expr: `^filter\..+\.(clean|smudge|process)$`},
		{expr: `^(difftool|mergetool)\..+\.(cmd|path)$`},
		{expr: `^alias\..+$`, bangOnly: true},
		{expr: `^submodule\..+\.update$`, bangOnly: true},
		{expr: `^credential\.(.+\.)?helper$`},
		{expr: `^gpg\.(.+\.)?program$`},
		{expr: `^uploadpack\.packobjectshook$`},
		{expr: `^protocol\.(.+\.)?allow$`},
		{expr: `^remote\..+\.(uploadpack|receivepack)$`},
		{expr: `^(web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path))$`},
		{expr: `^sendemail\.(smtpserver|.+\.smtpserver|sendmailcmd|.+\.sendmailcmd)$`},
		{expr: `^interactive\.difffilter$`},
		{expr: `^trailer\..+\.(command|cmd)$`},
		{expr: `^ssh\.variant$`},
	}
	for i := range rules {
		rules[i].pattern = regexp.MustCompile(rules[i].expr)
	}
	return rules
})

type gitCommandKeyRule struct {
	expr    string
	pattern *regexp.Regexp
	// boolOK: a boolean value names no program (core.fsmonitor=true is
	// git's built-in daemon).
	boolOK bool
	// bangOnly: only a value starting with "!" runs a shell command.
	bangOnly bool
}

// GitCommandKey reports whether a config entry (key as git lists it:
// section and name lower-case) names a program git may run.
func GitCommandKey(key, value string) bool {
	k := strings.ToLower(key)
	for _, e := range gitCommandKeys() {
		if !e.pattern.MatchString(k) {
			continue
		}
		v := strings.TrimSpace(strings.ToLower(value))
		if e.boolOK && (v == "" || isGitBool(v)) {
			return false
		}
		if e.bangOnly && !strings.HasPrefix(strings.TrimSpace(value), "!") {
			return false
		}
		return true
	}
	return false
}

func isGitBool(v string) bool {
	switch v {
	case "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// readOnlyHooks are the hooks a read-only git command can trigger: `git
// status` may write the refreshed index, which runs post-index-change.
var readOnlyHooks = []string{"post-index-change"}

// gitCheckTimeout bounds the `git config` run that reads a repository's
// configuration.
const gitCheckTimeout = 10 * time.Second

// RepoConfigRisks lists the entries of the configuration git would use in
// dir (the repository's own config, its worktree config and what they
// include; not the user's global or the system config, which are the
// user's) that name programs, plus read-only-reachable hooks. Each entry
// reads "key = value (file)". No repository, or no git, means no risk.
func RepoConfigRisks(ctx context.Context, dir string) ([]string, error) {
	return repoConfigRisks(ctx, dir, 0)
}

// maxSubmoduleDepth bounds how deep submodules are vetted; deeper ones
// count as a risk.
const maxSubmoduleDepth = 3

func repoConfigRisks(ctx context.Context, dir string, depth int) ([]string, error) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return nil, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil // the command cannot run git there either
	}
	ctx, cancel := context.WithTimeout(ctx, gitCheckTimeout)
	defer cancel()
	// Listing the configuration runs nothing the configuration names.
	cmd := exec.CommandContext(ctx, gitBin, "config", "--list", "--show-scope", "--show-origin", "-z", "--includes")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && out.Len() == 0 && !strings.Contains(errb.String(), "unknown option") {
			return nil, nil // not a repository (git status fails too)
		}
		return nil, fmt.Errorf("read the git configuration in %s: %v %s", dir, err, strings.TrimSpace(errb.String()))
	}
	var risks []string
	for _, e := range parseGitConfigList(out.Bytes()) {
		if e.scope != "local" && e.scope != "worktree" {
			continue
		}
		if GitCommandKey(e.key, e.value) {
			risks = append(risks, fmt.Sprintf("%s = %s (%s)", e.key, e.value, e.origin))
		}
	}
	risks = append(risks, hookRisks(ctx, gitBin, dir)...)
	// git status and git diff run git again in every populated submodule,
	// which reads that repository's own configuration.
	for _, sub := range populatedSubmodules(ctx, gitBin, dir) {
		if depth+1 > maxSubmoduleDepth {
			return append(risks, "submodule "+sub+" (nested too deep to check)"), nil
		}
		more, err := repoConfigRisks(ctx, sub, depth+1)
		if err != nil {
			return nil, err
		}
		for _, r := range more {
			risks = append(risks, "submodule "+sub+": "+r)
		}
	}
	return risks, nil
}

// populatedSubmodules lists the folders of the repository's gitlinks that
// hold a repository (.git file or folder).
func populatedSubmodules(ctx context.Context, gitBin, dir string) []string {
	top, err := gitOutput(ctx, gitBin, dir, "rev-parse", "--show-toplevel")
	if err != nil || top == "" {
		return nil
	}
	list, err := gitOutput(ctx, gitBin, dir, "-c", "core.fsmonitor=false", "ls-files", "--stage", "-z")
	if err != nil {
		return nil
	}
	var out []string
	for _, rec := range strings.Split(list, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		p := filepath.Join(top, path)
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func gitOutput(ctx context.Context, gitBin, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, gitBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// hookRisks lists executable read-only-reachable hooks in the folder git
// takes hooks from (core.hooksPath, which a hook manager such as husky
// sets, or the repository's hooks folder). Other hooks only run for
// commands that are not read-only, which ask anyway.
func hookRisks(ctx context.Context, gitBin, dir string) []string {
	hooks, err := gitOutput(ctx, gitBin, dir, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return nil
	}
	if !filepath.IsAbs(hooks) {
		hooks = filepath.Join(dir, hooks)
	}
	var risks []string
	for _, h := range readOnlyHooks {
		p := filepath.Join(hooks, h)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			risks = append(risks, "hook "+p)
		}
	}
	return risks
}

type gitConfigEntry struct{ origin, scope, key, value string }

// parseGitConfigList reads `git config --list --show-origin --show-scope
// -z`: records of "scope NUL origin NUL key LF value NUL".
func parseGitConfigList(b []byte) []gitConfigEntry {
	var out []gitConfigEntry
	fields := strings.Split(string(b), "\x00")
	for i := 0; i+2 < len(fields); i += 3 {
		key, value, _ := strings.Cut(fields[i+2], "\n")
		out = append(out, gitConfigEntry{scope: fields[i], origin: fields[i+1], key: key, value: value})
	}
	return out
}

// GitHardening is configuration the Bash tool passes (as GIT_CONFIG_COUNT
// entries, which beat every config file) to commands that run because
// they are read-only: it turns off the command-running keys git would
// otherwise take from a repository's config by their fixed names. It backs
// up RepoConfigRisks (a config changed between the check and the run);
// driver keys (`diff.<name>.textconv`, `filter.<name>.clean`) have names
// that cannot be listed here, which is why the check comes first.
var GitHardening = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"diff.external", ""},
}
