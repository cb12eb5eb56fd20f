// Package projectfile reads the files a repository controls: instruction
// files, skills, commands, agents, settings, .mcp.json, .tandem/config.json,
// ignore files. Git carries symbolic links, FIFOs cannot be committed but a
// setup script can make them, and a file can be any size, so a cloned
// repository could otherwise point SKILL.md at ~/.ssh/id_rsa (and have it
// sent to the provider), hang tandem on a FIFO or exhaust memory through
// /dev/zero. Every such read goes through Read, which resolves links,
// refuses a target outside the repository or on a credential-like path,
// opens regular files only without blocking, and caps the size. The user's
// own files (under the home or config folder) may link anywhere: ReadOwn
// checks only their type and size.
package projectfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/secretpaths"
)

// Size limits, one per kind of file. A file over its limit is refused (or,
// for instruction files, truncated) with a message naming it; it never
// costs more memory than the limit.
const (
	// InstructionLimit bounds one CLAUDE.md / AGENTS.md (or an import):
	// a huge file would crowd out the conversation.
	InstructionLimit = 64 << 10
	// ExtensionLimit bounds a SKILL.md, a command or an agent file; each
	// is sent to the model whole when used.
	ExtensionLimit = 256 << 10
	// SettingsLimit bounds a JSON settings file (.mcp.json,
	// .claude/settings*.json, .tandem/config.json).
	SettingsLimit = 1 << 20
	// IgnoreLimit bounds a .gitignore, .ignore or info/exclude file.
	IgnoreLimit = 1 << 20
)

// OutsideError: the file resolves to a path outside the repository.
type OutsideError struct {
	Path, Real, Root string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s links to %s, outside the repository %s; tandem reads a project's files only inside it (replace the link with a copy of the file)", e.Path, e.Real, e.Root)
}

// SensitiveError: the file is, or links to, a credential-like path.
type SensitiveError struct {
	Path, Real string
}

func (e *SensitiveError) Error() string {
	if e.Real == e.Path {
		return fmt.Sprintf("%s is a credential-like path; tandem never reads it as a project file (rename or move it)", e.Path)
	}
	return fmt.Sprintf("%s links to %s, a credential-like path; tandem never reads it as a project file (remove the link)", e.Path, e.Real)
}

// TooLargeError: the file is larger than the limit for its kind.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the limit for this kind of file; shorten it", e.Path, size(e.Limit))
}

// Refused reports whether err is one of this package's refusals or a
// file that is not regular: a file that exists but was not read, which
// callers report as a warning rather than treat as missing.
func Refused(err error) bool {
	var o *OutsideError
	var s *SensitiveError
	var l *TooLargeError
	return errors.As(err, &o) || errors.As(err, &s) || errors.As(err, &l) || regular.IsNotRegular(err)
}

func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// Root is a repository whose files are read: the real path of the nearest
// folder at or above the project folder holding .git, or of the project
// folder itself when it is in no repository.
type Root struct{ dir string }

// Open finds the repository holding project (the working folder).
func Open(project string) Root {
	if abs, err := filepath.Abs(project); err == nil {
		project = abs
	}
	return Root{dir: realDir(RepoRoot(project))}
}

// Dir is the root's real path.
func (r Root) Dir() string { return r.dir }

// Read reads path, a file of the repository holding project (see Root.Read).
// A missing file is an error satisfying errors.Is(err, fs.ErrNotExist).
func Read(project, path string, limit int64) ([]byte, error) {
	return Open(project).Read(path, limit)
}

// Read reads path, which must resolve to a regular file inside the root on
// no credential-like path, of at most limit bytes.
func (r Root) Read(path string, limit int64) ([]byte, error) {
	real, err := r.resolve(path)
	if err != nil {
		return nil, err
	}
	return readCapped(path, real, limit)
}

// ReadTruncated is Read keeping the first limit bytes of a larger file;
// more reports that there was more.
func (r Root) ReadTruncated(path string, limit int64) (data []byte, more bool, err error) {
	real, err := r.resolve(path)
	if err != nil {
		return nil, false, err
	}
	data, more, err = regular.ReadCapped(real, limit)
	return data, more, named(path, real, err)
}

// ReadOwn reads one of the user's own files (under the home or config
// folder), which may link anywhere: only its type and size are checked.
func ReadOwn(path string, limit int64) ([]byte, error) {
	return readCapped(path, path, limit)
}

func readCapped(path, real string, limit int64) ([]byte, error) {
	data, err := regular.ReadFileReusing(real, nil, limit)
	if errors.Is(err, regular.ErrTooLarge) {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, named(path, real, err)
}

// named reports errors about the resolved path under the name the caller
// knows the file by.
func named(path, real string, err error) error {
	var nr *regular.NotRegularError
	if errors.As(err, &nr) {
		return &regular.NotRegularError{Path: path, Mode: nr.Mode}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == real {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}

// resolve returns path's real path after checking it stays inside the
// root and names no credential.
func (r Root) resolve(path string) (string, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err // missing, or a broken link: fs.ErrNotExist
	}
	rel, ok := inside(real, r.dir)
	if !ok {
		return "", &OutsideError{Path: path, Real: real, Root: r.dir}
	}
	if secretpaths.Sensitive(rel, "") {
		return "", &SensitiveError{Path: path, Real: real}
	}
	return real, nil
}

// RepoRoot is the nearest folder at or above dir holding .git, or dir.
func RepoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// realDir resolves symlinks in dir (dir itself when that fails).
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}

// inside returns path relative to dir when it lies inside it.
func inside(path, dir string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}
