package claudecode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/runtimes"
)

// CLIInfo describes the claude executable Find settled on.
type CLIInfo struct {
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	// OK is true when the CLI was found and is recent enough.
	OK bool `json:"ok"`
	// Problem says what is wrong and how to fix it when OK is false.
	Problem string `json:"problem,omitempty"`
}

// ErrNotFound is returned (wrapped) by Find when no claude executable exists.
var ErrNotFound = errors.New("claude code CLI not found")

// versionTimeout bounds `claude --version`; the native binary answers in
// milliseconds, a broken install may hang.
const versionTimeout = 10 * time.Second

// candidates lists where to look, in order: the configured path, PATH,
// then the usual install locations.
func candidates(cfg Config) []string {
	if cfg.Path != "" {
		if !strings.ContainsRune(cfg.Path, filepath.Separator) {
			if p, err := exec.LookPath(cfg.Path); err == nil {
				return []string{p}
			}
		}
		return []string{cfg.Path}
	}
	var out []string
	if p, err := exec.LookPath("claude"); err == nil {
		out = append(out, p)
	}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out,
			filepath.Join(home, ".claude", "local", "claude"),
			filepath.Join(home, ".npm-global", "bin", "claude"),
		)
	}
	out = append(out, "/usr/local/bin/claude")
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out,
			filepath.Join(home, ".local", "bin", "claude"),
			filepath.Join(home, "node_modules", ".bin", "claude"),
		)
	}
	if wd, err := os.Getwd(); err == nil {
		out = append(out, filepath.Join(wd, "node_modules", ".bin", "claude"))
	}
	return out
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Find locates the claude CLI and checks its version. The error is nil only
// when info.OK; info.Problem always carries a user-facing explanation.
func Find(cfg Config) (CLIInfo, error) {
	path := ""
	for _, c := range candidates(cfg) {
		if isExecutable(c) {
			path = c
			break
		}
	}
	if path == "" {
		where := "on PATH or in ~/.claude/local, ~/.npm-global/bin, /usr/local/bin, ~/.local/bin, node_modules/.bin"
		if cfg.Path != "" {
			where = fmt.Sprintf("at the configured claude_code.path %q", cfg.Path)
		}
		info := CLIInfo{Problem: fmt.Sprintf("Claude Code CLI not found %s; install it with `npm install -g @anthropic-ai/claude-code` or set claude_code.path", where)}
		return info, fmt.Errorf("%w: %s", ErrNotFound, info.Problem)
	}
	info := CLIInfo{Path: path}
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = childEnv(os.Environ(), Config{}, Options{})
	out, err := cmd.Output()
	if err != nil {
		info.Problem = fmt.Sprintf("`%s --version` failed: %v; reinstall Claude Code or point claude_code.path at a working CLI", path, err)
		return info, errors.New(info.Problem)
	}
	return checkVersion(info, strings.TrimSpace(string(out)), cfg.minVersion())
}

// checkVersion fills info from the output of `claude --version` ("2.1.332
// (Claude Code)").
func checkVersion(info CLIInfo, out, minimum string) (CLIInfo, error) {
	first, _, _ := strings.Cut(out, " ")
	v, ok := parseVersion(first)
	if !ok {
		info.Problem = fmt.Sprintf("cannot read the version of %s from %q; is it the Claude Code CLI?", info.Path, out)
		return info, errors.New(info.Problem)
	}
	info.Version = fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	lo, ok := parseVersion(minimum)
	if !ok {
		info.Problem = fmt.Sprintf("claude_code.min_version %q is not a version", minimum)
		return info, errors.New(info.Problem)
	}
	if v.less(lo) {
		info.Problem = fmt.Sprintf("Claude Code %s at %s is too old: tandem needs %s or newer; run `claude update` or `npm install -g @anthropic-ai/claude-code@latest`", info.Version, info.Path, minimum)
		return info, errors.New(info.Problem)
	}
	info.OK = true
	return info, nil
}

// Selection is the outcome of AutoSelect.
type Selection struct {
	Runtime runtimes.Name // runtimes.Native or runtimes.ClaudeCode
	Reason  string        // why, for `tandem doctor` and verbose logs
	CLI     CLIInfo       // what Find reported (empty when not needed)
}

// AutoSelect resolves a requested runtime ("native", "claude-code", "auto"
// or empty, meaning auto). "auto" picks claude-code when a usable CLI is
// found and the provider speaks the Anthropic protocol (providerKind
// "anthropic"), native otherwise. An explicit "claude-code" with no usable
// CLI is an error naming the problem.
func AutoSelect(requested runtimes.Name, cfg Config, providerKind string) (Selection, error) {
	switch requested {
	case runtimes.Native:
		return Selection{Runtime: runtimes.Native, Reason: "requested"}, nil
	case runtimes.ClaudeCode:
		info, err := Find(cfg)
		if err != nil {
			return Selection{CLI: info}, fmt.Errorf("runtime claude-code: %w", err)
		}
		return Selection{Runtime: runtimes.ClaudeCode, Reason: "requested", CLI: info}, nil
	case "", runtimes.Auto:
	default:
		_, err := runtimes.Parse(string(requested))
		return Selection{}, err
	}
	if providerKind != "anthropic" {
		return Selection{Runtime: runtimes.Native, Reason: fmt.Sprintf("provider protocol %q is not Anthropic-compatible", providerKind)}, nil
	}
	info, err := Find(cfg)
	if err != nil {
		return Selection{Runtime: runtimes.Native, Reason: info.Problem, CLI: info}, nil
	}
	return Selection{Runtime: runtimes.ClaudeCode, Reason: fmt.Sprintf("Claude Code %s found at %s", info.Version, info.Path), CLI: info}, nil
}
