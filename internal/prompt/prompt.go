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

	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/projectfile"
	"github.com/tandem-agent/tandem/internal/regular"
)

//go:embed system.md
var base string

// instructionNames are read in this order in each folder; both are read
// when both exist, since projects that serve several agents keep both.
// internal/places owns them (so writing one always asks).
func instructionNames() []string { return places.Names(places.Project(), places.Instructions) }

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
	_, gitErr := os.Stat(filepath.Join(projectfile.RepoRoot(cwd), ".git"))
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
		globals = append(globals, places.Paths(b.ConfigDir, places.InConfigDir(), places.Instructions)...)
	}
	if b.Home != "" {
		globals = append(globals, places.Paths(b.Home, places.Home(), places.Instructions)...)
	}
	for _, p := range globals {
		// The user's own files may point anywhere (dotfiles managers link
		// them); only their type is checked.
		if s := b.read(p, nil); s != "" {
			parts = append(parts, fmt.Sprintf("# User instructions (%s)\n%s", p, s))
			if importsAllowed(p) {
				parts = append(parts, b.withImports(s, p, nil)...)
			}
		}
	}
	root := projectfile.Open(cwd)
	for _, dir := range foldersFromRoot(cwd) {
		for _, name := range instructionNames() {
			p := filepath.Join(dir, name)
			if s := b.read(p, &root); s != "" {
				parts = append(parts, fmt.Sprintf("# Project instructions (%s)\n%s", p, s))
				if importsAllowed(p) {
					parts = append(parts, b.withImports(s, p, &root)...)
				}
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// foldersFromRoot lists the folders from the repository root (or cwd when
// it is not in a repository) down to cwd.
func foldersFromRoot(cwd string) []string {
	root := projectfile.RepoRoot(cwd)
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

// read returns the trimmed, capped text of an instructions file, or "".
// When within is set (a project file), it is read through projectfile: a
// file that is a symlink to ~/.ssh/id_rsa (git carries symlinks) would
// otherwise be sent to the provider. The user's own files may point
// anywhere; only their type is checked.
func (b Builder) read(path string, within *projectfile.Root) string {
	if _, err := os.Lstat(path); err != nil {
		return ""
	}
	var data []byte
	var more bool
	var err error
	if within != nil {
		data, more, err = within.ReadTruncated(path, projectfile.InstructionLimit)
	} else {
		data, more, err = regular.ReadCapped(path, projectfile.InstructionLimit)
	}
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
