package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/tandem-agent/tandem/internal/store"
)

// Spill files hold tool output too long for the model (the full output
// of a command, a background job's log). They live per session under
// DataDir/tool-output/<session id>/, are removed with the session, and the
// whole folder is kept under SpillCap by removing the oldest files first.

// SpillCap bounds everything under DataDir/tool-output.
const SpillCap = 1 << 30

// SpillRoot is the folder holding every session's spill files.
func SpillRoot(dataDir string) string { return filepath.Join(dataDir, "tool-output") }

// SpillDir is the folder for one session's spill files; with no data
// folder, the system temp folder. A session id that is not a single safe
// path component is refused (store.JoinID), never cleaned into another
// folder.
func SpillDir(dataDir, sessionID string) (string, error) {
	if dataDir == "" {
		return os.TempDir(), nil
	}
	if sessionID == "" {
		sessionID = "no-session"
	}
	return store.JoinID(SpillRoot(dataDir), "session", sessionID)
}

// RemoveSpill deletes a session's spill files (the session was deleted).
func RemoveSpill(dataDir, sessionID string) error {
	if dataDir == "" || sessionID == "" {
		return nil
	}
	dir, err := SpillDir(dataDir, sessionID)
	if err != nil {
		return fmt.Errorf("remove the tool output of a session: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove the tool output of session %s: %w", sessionID, err)
	}
	return nil
}

// CreateSpill makes room (see PruneSpill) and creates a spill file for a
// session; prefix names it ("bash", "bash-bash_1").
func CreateSpill(dataDir, sessionID, prefix string, want int64) (*os.File, error) {
	dir, err := SpillDir(dataDir, sessionID)
	if err != nil {
		return nil, fmt.Errorf("create spill file: %w", err)
	}
	if dataDir != "" {
		PruneSpill(dataDir, SpillCap-want)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, SpillError(dir, fmt.Errorf("create spill folder %s: %w", dir, err))
	}
	f, err := os.CreateTemp(dir, prefix+"-*.log")
	if err != nil {
		return nil, SpillError(dir, fmt.Errorf("create spill file in %s: %w", dir, err))
	}
	return f, nil
}

// PruneSpill removes the oldest spill files until the folder holds at most
// limit bytes.
func PruneSpill(dataDir string, limit int64) {
	type file struct {
		path string
		size int64
		mod  int64
	}
	var files []file
	var total int64
	_ = filepath.WalkDir(SpillRoot(dataDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		files = append(files, file{p, info.Size(), info.ModTime().UnixNano()})
		total += info.Size()
		return nil
	})
	if total <= limit {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod < files[j].mod })
	for _, f := range files {
		if total <= limit {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// SpillError adds what to do to an error writing spill files: on a full
// disk, that the disk is full and which folder can be emptied.
func SpillError(dir string, err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("the disk is full (%w): free space, e.g. by deleting old tool output in %s or old sessions with `tandem sessions delete`", err, dir)
	}
	return err
}
