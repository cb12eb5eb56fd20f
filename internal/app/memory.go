package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/places"
	"github.com/tandem-agent/tandem/internal/regular"
)

// MemoryFile is an instruction file a session loads that the user may
// edit from the terminal UI (/memory) or add a line to (a prompt starting
// with #), as Claude Code's memory.
type MemoryFile struct {
	Scope  string // "project" or "user"
	Path   string
	Exists bool
}

// MemoryFiles are the project's and the user's instruction files for a
// session in cwd: of each, the first that exists among the names tandem
// loads (internal/places), else the first name (where a new one goes).
// CLAUDE.local.md is the user's private file in a project, not shared
// memory, so it is not offered.
func (a *App) MemoryFiles(cwd string) []MemoryFile {
	var project []string
	for _, n := range places.Names(places.Project(), places.Instructions) {
		if n != "CLAUDE.local.md" {
			project = append(project, filepath.Join(cwd, n))
		}
	}
	user := places.Paths(a.Paths.ConfigDir, places.InConfigDir(), places.Instructions)
	if home := a.home(); home != "" {
		user = append(user, places.Paths(home, places.Home(), places.Instructions)...)
	}
	return []MemoryFile{pickMemory("project", project), pickMemory("user", user)}
}

func pickMemory(scope string, paths []string) MemoryFile {
	for _, p := range paths {
		if _, err := regular.Check(p, false); err == nil {
			return MemoryFile{Scope: scope, Path: p, Exists: true}
		}
	}
	return MemoryFile{Scope: scope, Path: paths[0]}
}

// AppendMemory adds line to the instruction file at path as a list item,
// creating the file (and its folder) when missing. Only a regular file is
// written: a FIFO or device there is refused, never blocked on.
func AppendMemory(path, line string) error {
	line = strings.TrimSpace(strings.ReplaceAll(line, "\n", " "))
	if line == "" {
		return errors.New("nothing to remember: type the line after #")
	}
	prefix := ""
	data, err := regular.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create the folder of %s: %w", path, err)
		}
	case err != nil:
		return fmt.Errorf("read %s: %w", path, err)
	case len(data) > 0 && !strings.HasSuffix(string(data), "\n"):
		prefix = "\n"
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscallNonblock, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("%s is not a regular file: remove it or pick the other memory file", path)
	}
	if _, err := f.WriteString(prefix + "- " + line + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
