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

// Add trusts dir (and its subfolders) and returns the real path stored.
func (s *Store) Add(dir string) (string, error) {
	real, err := RealPath(dir)
	if err != nil {
		return "", err
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
