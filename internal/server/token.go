package server

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// minTokenLen keeps a hand-set token from being trivially guessable.
const minTokenLen = 16

// LoadOrCreateToken returns the token stored in the file at path (the data
// folder's server-token, config.Paths.TokenFile), creating it (mode 0600)
// with 32 random bytes when it is missing. created reports a new token,
// which the caller prints once.
func LoadOrCreateToken(path string) (token string, created bool, err error) {
	data, err := os.ReadFile(path)
	if err == nil {
		tok := strings.TrimSpace(string(data))
		if err := ValidateToken(tok); err != nil {
			return "", false, fmt.Errorf("token file %s: %w (delete it to get a new one)", path, err)
		}
		if fi, serr := os.Stat(path); serr == nil && fi.Mode().Perm()&0o077 != 0 {
			if cerr := os.Chmod(path, 0o600); cerr != nil {
				return "", false, fmt.Errorf("token file %s is readable by others and cannot be fixed: %w", path, cerr)
			}
		}
		return tok, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("read token file %s: %w", path, err)
	}
	tok, err := NewToken()
	if err != nil {
		return "", false, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", false, fmt.Errorf("create data folder %s: %w", filepath.Dir(path), err)
	}
	// O_EXCL: two servers starting at once must not each write their own.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadOrCreateToken(path)
	}
	if err != nil {
		return "", false, fmt.Errorf("create token file %s: %w", path, err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return "", false, fmt.Errorf("write token file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return "", false, fmt.Errorf("write token file %s: %w", path, err)
	}
	return tok, true, nil
}

// NewToken returns 32 random bytes, base64url encoded.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// ValidateToken checks a token given by flag, environment or file.
func ValidateToken(tok string) error {
	if len(tok) < minTokenLen {
		return fmt.Errorf("token is shorter than %d characters", minTokenLen)
	}
	if strings.ContainsAny(tok, " \t\r\n;,\"") {
		return errors.New("token contains spaces, quotes, commas or semicolons")
	}
	return nil
}
