package app

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// installIDFile holds a random id for this install, created on first use.
// The claude-code-compat transport derives its stable device id from it
// (never from a key), as Claude Code derives its own from a random id in
// its home.
const installIDFile = "install-id"

// installID reads the install's id from dataDir, creating it when missing.
// Concurrent processes may race to create it; the first write wins
// (O_EXCL) and the others read it.
type installID struct {
	dir  string
	once sync.Once
	id   string
	err  error
}

func (i *installID) get() (string, error) {
	i.once.Do(func() { i.id, i.err = loadInstallID(i.dir) })
	return i.id, i.err
}

func loadInstallID(dir string) (string, error) {
	path := filepath.Join(dir, installIDFile)
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("install id: %w", err)
	}
	id := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("install id: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return "", fmt.Errorf("install id: %w", rerr)
		}
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil {
		return "", fmt.Errorf("install id: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(id + "\n"); err != nil {
		return "", fmt.Errorf("install id %s: %w", path, err)
	}
	return id, nil
}
