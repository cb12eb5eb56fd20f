package checkpoint

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// baseEntry is the last seen state of one workspace file: its stat and the
// hash of its content as saved in the blob store (Large: over the size
// limit, not saved).
type baseEntry struct {
	Stat  fileStat
	Hash  string
	Large bool
}

// baselineFile is the on-disk form of a session's baseline, so a new
// process (every `tandem run --resume`) only stats the workspace instead
// of reading it all again.
type baselineFile struct {
	Version int
	Root    string
	Files   map[string]baseEntry
}

const baselineVersion = 1

func loadBaseline(path, root string) map[string]baseEntry {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var b baselineFile
	if gob.NewDecoder(f).Decode(&b) != nil || b.Version != baselineVersion || b.Root != root {
		return nil // unreadable or another layout: rebuilt from the workspace
	}
	return b.Files
}

func saveBaseline(path, root string, files map[string]baseEntry) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save checkpoint baseline: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".baseline-*")
	if err != nil {
		return fmt.Errorf("save checkpoint baseline: %w", err)
	}
	err = gob.NewEncoder(tmp).Encode(baselineFile{Version: baselineVersion, Root: root, Files: files})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save checkpoint baseline: %w", err)
	}
	return nil
}

// baselineHashes adds the hashes every stored baseline under dir refers to.
func baselineHashes(dir string, keep map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, e.Name(), "baseline"))
		if err != nil {
			continue
		}
		var b baselineFile
		err = gob.NewDecoder(f).Decode(&b)
		f.Close()
		if err != nil {
			continue
		}
		for _, be := range b.Files {
			if be.Hash != "" {
				keep[be.Hash] = true
			}
		}
	}
	return nil
}
