// Package prompt builds the native runtime's system prompt: tandem's own
// instructions, facts about the environment, and the project instructions
// users keep in AGENTS.md / CLAUDE.md files.
package prompt

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/permit"
	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/projectfile"
	"github.com/tandem-agent/tandem/internal/regular"
)

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
	// NoProject leaves the project's instruction files out (a Claude Code
	// host whose --setting-sources leaves out "project").
	NoProject bool
	// MCP returns the instructions of the session's connected MCP servers
	// (server name -> text), read at each request: a server that connects
	// later adds its own. nil: none.
	MCP func() map[string]string
	// Style is the session's output style (nil or "default": none).
	Style *Style
}

// Request is what the system prompt depends on: everything that may
// differ between sessions, modes and models.
type Request struct {
	Cwd string
	// Append is --append-system-prompt (or a sub-agent's instructions).
	Append string
	// Model is the model id as sent: the family comes from it, and the
	// environment tells the model its own name.
	Model string
	Mode  permit.Mode
	// NoAsker: nobody can answer a question or approve a call during the
	// turn (`tandem run -p`).
	NoAsker bool
	// Tools are the names of the tools offered in the request; sections
	// mention only those.
	Tools []string
	// Env is the session's environment, taken once (Builder.Environment);
	// the zero value takes it now.
	Env Environment
}

// Section is one named part of the system prompt. Consecutive sections
// with the same Block are sent as one system block.
type Section struct {
	Block int
	Name  string
	Text  string
}

// Blocks joins sections into the system blocks sent to the provider.
func Blocks(secs []Section) []string {
	var out []string
	last := -1
	for _, s := range secs {
		if s.Block == last && len(out) > 0 {
			out[len(out)-1] += "\n\n" + s.Text
			continue
		}
		out = append(out, s.Text)
		last = s.Block
	}
	return out
}

// System returns the system prompt blocks for req (see Sections).
func (b Builder) System(req Request) []string { return Blocks(b.Sections(req)) }

// Sections builds the system prompt. What changes least comes first so a
// provider's prompt cache reuses the longest prefix: tandem's instructions
// for the model's family (fixed per family and tool set), the project's
// instructions (fixed per folder), the mode (may change between turns),
// the environment (per session), the MCP servers' instructions (as they
// connect) and the appended text.
func (b Builder) Sections(req Request) []Section {
	fam := FamilyOf(req.Model)
	var secs []Section
	add := func(block int, name, file string) {
		text, err := render(file, req.Tools)
		if err != nil {
			// The sections are embedded and parsed at start-up; a failing
			// one is a bug the tests catch, never the user's doing.
			b.warn(err.Error())
			return
		}
		if text != "" {
			secs = append(secs, Section{Block: block, Name: name, Text: text})
		}
	}
	for _, name := range shared {
		if !b.Style.IsDefault() && !b.Style.KeepCoding && codingSections[name] {
			continue
		}
		add(0, name, name)
	}
	add(0, "family: "+string(fam), string(fam))
	if !b.Style.IsDefault() {
		secs = append(secs, styleSection(b.Style))
	}
	if inst := b.Instructions(req.Cwd); inst != "" {
		secs = append(secs, Section{Block: 1, Name: "project instructions", Text: inst})
	}
	mode := modeSection(req.Mode)
	add(2, "mode: "+mode, mode)
	if req.NoAsker && req.Mode != permit.Explore {
		add(2, "no one to ask", "noasker")
	}
	env := req.Env
	if env == (Environment{}) {
		env = b.Environment(context.Background(), req.Cwd)
	}
	secs = append(secs, Section{Block: 3, Name: "environment", Text: env.render(req.Model)})
	if b.MCP != nil {
		// After the environment: servers connect and leave during a
		// session, and what changes goes last for the prompt cache.
		if text := MCPInstructions(b.MCP()); text != "" {
			secs = append(secs, Section{Block: 4, Name: "mcp instructions", Text: text})
		}
	}
	if strings.TrimSpace(req.Append) != "" {
		secs = append(secs, Section{Block: 5, Name: "appended", Text: req.Append})
	}
	return secs
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
	dirs := foldersFromRoot(cwd)
	if b.NoProject {
		dirs = nil
	}
	for _, dir := range dirs {
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
