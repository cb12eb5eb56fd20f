// Package trust records which folders the user trusts. A project's own
// files (.tandem/config.json, .claude/settings*.json, .mcp.json) arrive
// with a cloned repository; what in them could send the user's keys
// elsewhere or run commands is honoured only in a trusted folder. Trusting
// a folder covers its subfolders. Folders are stored as real paths
// (symlinks resolved), so a link cannot borrow another folder's trust.
package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// File is the name of the trust list in tandem's data folder.
const File = "trusted-folders.json"

// Store keeps the trusted folders in a JSON file:
// {"folders": ["/real/path", ...]}.
type Store struct {
	path string
	mu   sync.Mutex
	// Home is the user's home folder: trusting it, or a folder above it,
	// needs AddBroad.
	Home string
}

// NewStore returns the trust list kept in dataDir.
func NewStore(dataDir string) *Store { return &Store{path: filepath.Join(dataDir, File)} }

// Path is the file the list lives in.
func (s *Store) Path() string { return s.path }

type doc struct {
	Folders []string `json:"folders"`
}

// RealPath returns dir as an absolute path with symlinks resolved.
func RealPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("folder %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("folder %s: %w", dir, err)
	}
	return filepath.Clean(real), nil
}

// List returns the trusted folders, sorted.
func (s *Store) List() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	return d.Folders, err
}

// Trusted reports whether dir is a trusted folder or inside one, and which
// trusted folder covers it.
func (s *Store) Trusted(dir string) (root string, ok bool, err error) {
	real, err := RealPath(dir)
	if err != nil {
		return "", false, err
	}
	folders, err := s.List()
	if err != nil {
		return "", false, err
	}
	for _, f := range folders {
		if Within(real, f) {
			return f, true, nil
		}
	}
	return "", false, nil
}

// Within reports whether path is root or below it (both clean, absolute).
func Within(path, root string) bool {
	if path == root || root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}

// BroadError refuses to trust / or the home folder (or a folder above it)
// without confirmation: that would trust every repository the user ever
// clones there.
type BroadError struct{ Dir string }

func (e *BroadError) Error() string {
	return fmt.Sprintf("trusting %s would trust the project files of every folder under it, every repository you clone there included; "+
		"trust the project's own folder instead, or if you mean it, run `tandem trust --broad %s`", e.Dir, e.Dir)
}

// Broad reports whether trusting real would cover the whole file system
// or the user's home folder.
func (s *Store) Broad(real string) bool {
	if real == string(filepath.Separator) {
		return true
	}
	if s.Home == "" {
		return false
	}
	home, err := RealPath(s.Home)
	if err != nil {
		home = filepath.Clean(s.Home)
	}
	return Within(home, real)
}

// Add trusts dir (and its subfolders) and returns the real path stored.
// The root folder and the home folder (or one above it) are refused with a
// *BroadError: AddBroad trusts them.
func (s *Store) Add(dir string) (string, error) { return s.add(dir, false) }

// AddBroad is Add that also trusts / or the home folder, for `tandem trust
// --broad`.
func (s *Store) AddBroad(dir string) (string, error) { return s.add(dir, true) }

func (s *Store) add(dir string, broad bool) (string, error) {
	real, err := RealPath(dir)
	if err != nil {
		return "", err
	}
	if !broad && s.Broad(real) {
		return "", &BroadError{Dir: real}
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("trust %s: not a folder", dir)
	}
	return real, s.update(func(list []string) []string {
		if !slices.Contains(list, real) {
			list = append(list, real)
		}
		return list
	})
}

// Remove stops trusting dir. It is an error when dir is not itself in the
// list, naming the trusted folder that covers it if there is one, so the
// user is never left believing a revoke worked when it did not.
func (s *Store) Remove(dir string) (string, error) {
	real, err := RealPath(dir)
	if err != nil {
		// A deleted folder can still be revoked by the path it was stored under.
		real = filepath.Clean(dir)
	}
	folders, err := s.List()
	if err != nil {
		return "", err
	}
	if !slices.Contains(folders, real) {
		for _, f := range folders {
			if Within(real, f) {
				return "", fmt.Errorf("%s is not trusted on its own: it is inside the trusted folder %s; revoke that with `tandem trust --revoke %s`", real, f, f)
			}
		}
		return "", fmt.Errorf("%s is not a trusted folder (list them with `tandem trust --list`)", real)
	}
	return real, s.update(func(list []string) []string {
		return slices.DeleteFunc(list, func(f string) bool { return f == real })
	})
}

// Remove stops trusting dir, and names the trusted folder that still
// covers it ("" if none), so a revoke that leaves the folder trusted says so.
func (s *Store) RemoveAndCheck(dir string) (real, stillBy string, err error) {
	if real, err = s.Remove(dir); err != nil {
		return "", "", err
	}
	stillBy, _, err = s.Trusted(real)
	return real, stillBy, err
}

func (s *Store) load() (doc, error) {
	var d doc
	data, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("read trusted folders: %w", err)
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return d, fmt.Errorf("trusted folders %s: not valid JSON (fix or delete the file): %w", s.path, err)
	}
	slices.Sort(d.Folders)
	return d, nil
}

func (s *Store) update(f func([]string) []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, err := s.load()
	if err != nil {
		return err
	}
	d.Folders = f(d.Folders)
	slices.Sort(d.Folders)
	if d.Folders == nil {
		d.Folders = []string{}
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("save trusted folders: %w", err)
	}
	data, _ := json.MarshalIndent(d, "", "  ")
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save trusted folders: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("save trusted folders: %w", err)
	}
	return nil
}
