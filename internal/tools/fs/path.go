// Package fs holds the file tools the model uses: Read, Write, Edit and
// MultiEdit, with the names and input schemas of Claude Code's tools so
// prompts and habits carry over. docs/tools.md documents their behaviour.
package fs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

// ResolvePath turns a path from the model into a clean absolute path:
// relative paths are taken from env.WorkDir, "~/" from the user's home.
// It does not enforce env.Roots (the permission engine does) and does not
// follow symlinks (see canonical).
func ResolvePath(env *tool.Env, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("the path is empty")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", errors.New("the path contains a NUL byte")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand ~ in %q: %w", p, err)
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	if !filepath.IsAbs(p) {
		base := ""
		if env != nil {
			base = env.WorkDir
		}
		if base == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", fmt.Errorf("resolve relative path %q: %w", p, err)
			}
			base = wd
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// canonical follows symlinks so that the tracker and the lock table see one
// key per file whichever name the model used. For a file that does not exist
// yet, the parent folder is resolved instead.
func canonical(abs string) string {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	dir, base := filepath.Split(abs)
	if realDir, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(realDir, base)
	}
	return abs
}

// resolveForTool resolves and canonicalises a path, turning a bad path into a
// message for the model.
func resolveForTool(env *tool.Env, toolName, p string) (abs, real string, errMsg string) {
	abs, err := ResolvePath(env, p)
	if err != nil {
		return "", "", fmt.Sprintf("invalid file_path for %s: %v. Give an absolute path such as /path/to/file.go.", toolName, err)
	}
	return abs, canonical(abs), ""
}

// relNote tells the model where a relative path ended up, so a wrong guess
// about the working folder is visible at once.
func relNote(given, abs string) string {
	if filepath.IsAbs(given) {
		return ""
	}
	return fmt.Sprintf(" (relative path %q resolved to %s; prefer absolute paths)", given, abs)
}
