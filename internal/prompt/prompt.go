// Package prompt builds the native runtime's system prompt: tandem's own
// instructions, facts about the environment, and the project instructions
// users keep in AGENTS.md / CLAUDE.md files.
package prompt

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/regular"
)

//go:embed system.md
var base string

// instructionNames are read in this order in each folder; both are read
// when both exist, since projects that serve several agents keep both.
var instructionNames = []string{"AGENTS.md", "CLAUDE.md", "CLAUDE.local.md"}

// maxInstructionBytes bounds one instructions file: a huge file would crowd
// out the conversation.
const maxInstructionBytes = 64 << 10

// Builder assembles system prompts. ConfigDir and Home locate the user's
// global instructions.
type Builder struct {
	ConfigDir string // tandem's config folder: AGENTS.md there applies everywhere
	Home      string // ~/.claude/CLAUDE.md is read too, for Claude Code users
	Now       func() time.Time
	// Warn receives a line for every instructions file that exists but is
	// left out (unreadable, a FIFO, a link out of the repository), so a
	// file the user relies on is never dropped unseen; nil: dropped.
	Warn io.Writer
	// NoProject leaves the project's instruction files out (a Claude Code
	// host whose --setting-sources leaves out "project").
	NoProject bool
}

// Build returns the system prompt blocks for a turn in cwd. The stable part
// (base instructions and project files) comes first and the environment
// last, so prompt caching can reuse the prefix.
func (b Builder) Build(cwd, appendText string) []string {
	blocks := []string{base}
	if inst := b.Instructions(cwd); inst != "" {
		blocks = append(blocks, inst)
	}
	blocks = append(blocks, b.environment(cwd))
	if strings.TrimSpace(appendText) != "" {
		blocks = append(blocks, appendText)
	}
	return blocks
}

func (b Builder) environment(cwd string) string {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	_, gitErr := os.Stat(filepath.Join(repoRoot(cwd), ".git"))
	return fmt.Sprintf("# Environment\nWorking directory: %s\nIs a git repository: %t\nPlatform: %s/%s\nToday's date: %s",
		cwd, gitErr == nil, runtime.GOOS, runtime.GOARCH, now().Format("2006-01-02"))
}

// Instructions collects the user's global instructions and the project's
// from the repository root down to cwd (nearer files last, so they win when
// they disagree).
func (b Builder) Instructions(cwd string) string {
	var parts []string
	var globals []string
	if b.ConfigDir != "" {
		globals = append(globals, filepath.Join(b.ConfigDir, "AGENTS.md"))
	}
	if b.Home != "" {
		globals = append(globals, filepath.Join(b.Home, ".claude", "CLAUDE.md"))
	}
	for _, p := range globals {
		// The user's own files may point anywhere (dotfiles managers link
		// them); only their type is checked.
		if s := b.read(p, ""); s != "" {
			parts = append(parts, fmt.Sprintf("# User instructions (%s)\n%s", p, s))
			if importsAllowed(p) {
				parts = append(parts, b.withImports(s, p, "")...)
			}
		}
	}
	root := realDir(repoRoot(cwd))
	dirs := foldersFromRoot(cwd)
	if b.NoProject {
		dirs = nil
	}
	for _, dir := range dirs {
		for _, name := range instructionNames {
			p := filepath.Join(dir, name)
			if s := b.read(p, root); s != "" {
				parts = append(parts, fmt.Sprintf("# Project instructions (%s)\n%s", p, s))
				if importsAllowed(p) {
					parts = append(parts, b.withImports(s, p, root)...)
				}
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// foldersFromRoot lists the folders from the repository root (or cwd when
// it is not in a repository) down to cwd.
func foldersFromRoot(cwd string) []string {
	root := repoRoot(cwd)
	var dirs []string
	for d := cwd; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	for i, j := 0, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	return dirs
}

// repoRoot is the nearest folder at or above cwd holding .git, or cwd.
func repoRoot(cwd string) string {
	for d := cwd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return cwd
		}
	}
}

// read returns the trimmed, capped text of an instructions file, or "".
// When within is set, the file's real path must be inside it: a project
// file that is a symlink to ~/.ssh/id_rsa (git carries symlinks) would
// otherwise be sent to the provider.
func (b Builder) read(path, within string) string {
	if _, err := os.Lstat(path); err != nil {
		return ""
	}
	if within != "" {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			b.warn(fmt.Sprintf("Skipped instructions file %s: it is a broken link (%v).", path, err))
			return ""
		}
		if !inside(real, within) {
			where := "it is"
			if real != filepath.Clean(path) {
				where = "it links to " + real + ","
			}
			b.warn(fmt.Sprintf("Skipped instructions file %s: %s outside the repository %s; only files inside the repository (or your own global instructions) are read.", path, where, within))
			return ""
		}
	}
	data, more, err := regular.ReadCapped(path, maxInstructionBytes)
	if err != nil {
		b.warn(fmt.Sprintf("Skipped instructions file %s: %v.", path, err))
		return ""
	}
	s := strings.TrimSpace(string(data))
	if more {
		s += "\n[... truncated: this instructions file is over 64 KiB]"
	}
	return s
}

func (b Builder) warn(msg string) {
	if b.Warn != nil {
		fmt.Fprintf(b.Warn, "tandem: %s\n", msg)
	}
}

// realDir resolves symlinks in dir (dir itself when that fails).
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
