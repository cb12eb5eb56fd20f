package prompt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/gitrepo"
	"github.com/tandem-agent/tandem/internal/projectfile"
)

// Environment is what the model is told of where it works. It is taken
// once per session (Builder.Environment) and sent last in the system
// prompt: it changes between sessions, and a value that changed at every
// step (the git status after an edit) would spoil the provider's prompt
// cache for everything after it.
type Environment struct {
	Date   string // YYYY-MM-DD
	OS     string // GOOS/GOARCH
	Shell  string // what Bash runs commands with
	Folder string
	Git    string // "not a repository", or the branch and short status
}

// gitStatusLines bounds the status shown: a checkout with thousands of
// changed files would otherwise fill the prompt.
const gitStatusLines = 20

// gitTimeout bounds the git calls: a huge or networked checkout must not
// hold up the session's first request.
const gitTimeout = 3 * time.Second

// Environment takes the facts for a session in cwd.
func (b Builder) Environment(ctx context.Context, cwd string) Environment {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	return Environment{
		Date:   now().Format("2006-01-02"),
		OS:     runtime.GOOS + "/" + runtime.GOARCH,
		Shell:  shellName(),
		Folder: cwd,
		Git:    gitSummary(ctx, cwd),
	}
}

// shellName is the shell Bash commands run in (bash, else sh; see
// internal/tools/shell).
func shellName() string {
	if _, err := exec.LookPath("bash"); err == nil {
		return "bash"
	}
	return "sh"
}

// gitSummary is "not a repository" or "repository, branch X" with the
// short status. git runs only when the repository's own config names no
// program (gitrepo.RepoConfigRisks: a cloned repository must not run a
// command before the user trusts it), with the same hardening the Bash
// tool gives read-only git commands.
func gitSummary(ctx context.Context, cwd string) string {
	if _, err := os.Stat(filepath.Join(projectfile.RepoRoot(cwd), ".git")); err != nil {
		return "not a repository"
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return "repository (git is not installed, status unknown)"
	}
	if risks, err := gitrepo.RepoConfigRisks(ctx, cwd); err != nil || len(risks) > 0 {
		return "repository (status not read: its git config names programs)"
	}
	args := []string{}
	for _, kv := range gitrepo.GitHardening {
		args = append(args, "-c", kv[0]+"="+kv[1])
	}
	args = append(args, "status", "--porcelain=v1", "--branch", "--untracked-files=normal")
	cmd := exec.CommandContext(ctx, gitBin, args...)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "repository (status timed out)"
		}
		return "repository (status unavailable)"
	}
	return formatStatus(out.String())
}

// formatStatus turns `git status --porcelain=v1 --branch` into the
// summary: the branch line, then at most gitStatusLines changed paths.
func formatStatus(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	branch := "unknown"
	if len(lines) > 0 && strings.HasPrefix(lines[0], "## ") {
		branch = strings.TrimPrefix(lines[0], "## ")
		lines = lines[1:]
	}
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "repository, branch %s", branch)
	if len(lines) == 0 {
		b.WriteString(", clean")
		return b.String()
	}
	fmt.Fprintf(&b, ", %d changed paths at session start:", len(lines))
	for i, l := range lines {
		if i == gitStatusLines {
			fmt.Fprintf(&b, "\n  … %d more", len(lines)-i)
			break
		}
		if len(l) > 200 {
			l = l[:200] + "…"
		}
		b.WriteString("\n  " + l)
	}
	return b.String()
}

// render is the environment section; model is the id as sent.
func (e Environment) render(model string) string {
	var b strings.Builder
	b.WriteString("# Environment\n")
	fmt.Fprintf(&b, "Date: %s\nOS: %s\nShell: %s\nFolder: %s\nGit: %s", e.Date, e.OS, e.Shell, e.Folder, e.Git)
	if model != "" {
		fmt.Fprintf(&b, "\nModel: you are %s", model)
	}
	return b.String()
}
