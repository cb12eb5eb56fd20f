package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tandem-agent/tandem/internal/regular"
)

// blobs is the content-addressed store of file contents: a file's bytes
// live once under their sha256, whatever sessions and checkpoints refer
// to them, so an unchanged file costs nothing after its first save.
type blobs struct{ dir string }

func (b blobs) path(hash string) string { return filepath.Join(b.dir, hash[:2], hash[2:]) }

// fileInfo is what saving a file learnt about it.
type fileInfo struct {
	exists   bool
	tooLarge bool
	hash     string
	mode     fs.FileMode
	size     int64
}

// saveFile reads path and stores its content; a missing file is reported
// as not existing, a regular file over max as too large (not read).
func (b blobs) saveFile(path string, max int64) (fileInfo, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileInfo{}, nil
	}
	if err != nil {
		return fileInfo{}, err
	}
	info := fileInfo{exists: true, mode: fi.Mode().Perm(), size: fi.Size()}
	if !fi.Mode().IsRegular() {
		// Symlinks, devices, folders: not file content we can put back.
		info.tooLarge = true
		return info, nil
	}
	if fi.Size() > max {
		info.tooLarge = true
		return info, nil
	}
	// The first checkpoint of a session reads every file of the
	// workspace: regular.ReadFile costs two system calls less per file
	// than os.ReadFile, and refuses a file swapped for a FIFO meanwhile.
	data, err := regular.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileInfo{}, nil
	}
	if regular.IsNotRegular(err) {
		info.tooLarge = true
		return info, nil
	}
	if err != nil {
		return info, err
	}
	info.size = int64(len(data))
	info.hash, err = b.put(data)
	return info, err
}

// put stores data and returns its hash. Written to a temporary file and
// renamed, so a reader never sees a partial blob.
func (b blobs) put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	p := b.path(h)
	if _, err := os.Stat(p); err == nil {
		return h, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("save snapshot: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("save snapshot: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", fmt.Errorf("save snapshot: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("save snapshot: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("save snapshot: %w", err)
	}
	return h, nil
}

func (b blobs) get(hash string) ([]byte, error) {
	if len(hash) < 3 {
		return nil, fmt.Errorf("bad snapshot hash %q", hash)
	}
	data, err := os.ReadFile(b.path(hash))
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", hash[:12], err)
	}
	return data, nil
}

// hashFile returns the sha256 of a file's content ("" when it is missing).
// It opens the file without blocking and only when it is regular: a FIFO
// put where a checkpointed file was would otherwise hang a rewind.
func hashFile(path string) (string, bool, error) {
	f, _, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", true, err
	}
	return hex.EncodeToString(h.Sum(nil)), true, nil
}

// collect removes blobs not in keep. Blobs younger than grace stay: another
// process may have saved them for a baseline it has not written yet.
func (b blobs) collect(keep map[string]bool, grace time.Duration) (int, error) {
	removed := 0
	cutoff := time.Now().Add(-grace)
	err := filepath.WalkDir(b.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(b.dir, p)
		h := filepath.Dir(rel) + filepath.Base(rel)
		if keep[h] {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().After(cutoff) {
			return nil
		}
		if os.Remove(p) == nil {
			removed++
		}
		return nil
	})
	return removed, err
}
