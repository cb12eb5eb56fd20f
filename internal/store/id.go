package store

import (
	"errors"
	"fmt"
	"path/filepath"
)

// Ids become folder names: a session's checkpoints, tool output and skill
// bridge live under <data folder>/<kind>/<id>, and `sessions delete`
// removes that folder. An id is therefore checked where it enters (the
// store's create and lookup, the CLI's --session-id, the HTTP path, ACP,
// the Claude Code protocol, a fork) and joined under a folder only by
// JoinID, so an id such as "../../.." can never name the data folder's
// parent.

// ErrBadID is wrapped by every refusal of an id.
var ErrBadID = errors.New("not a valid id")

// maxIDLen bounds an id: a generated one is 30 characters, a UUID 36.
const maxIDLen = 128

// idChar is what an id may hold: no separator, no control character, no
// space, nothing a shell or a file system reads specially.
func idChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

func allIDChars(id string) bool {
	for i := 0; i < len(id); i++ {
		if !idChar(id[i]) {
			return false
		}
	}
	return true
}

// CheckID refuses an id that could not safely be a single path component:
// empty, over 128 characters, "." or "..", or holding anything but
// letters, digits, '.', '_' and '-' (so no '/', '\\' or control
// characters). what names the kind of id for the error ("session",
// "tool call", "skill").
func CheckID(what, id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: the %s id is empty", ErrBadID, what)
	case len(id) > maxIDLen:
		return fmt.Errorf("%w: the %s id is %d characters long (at most %d)", ErrBadID, what, len(id), maxIDLen)
	case id == "." || id == "..":
		return fmt.Errorf("%w: %s id %q names a folder, not a %s", ErrBadID, what, id, what)
	case !allIDChars(id):
		return fmt.Errorf("%w: %s id %q may hold only letters, digits, '.', '_' and '-' (no path separators or control characters)", ErrBadID, what, id)
	}
	return nil
}

// JoinID is dir/id for an id checked by CheckID, and refuses any result
// that is not a direct child of dir. Every path built from an id goes
// through it before anything is written or removed there.
func JoinID(dir, what, id string) (string, error) {
	if err := CheckID(what, id); err != nil {
		return "", err
	}
	dir = filepath.Clean(dir)
	p := filepath.Join(dir, id)
	if filepath.Dir(p) != dir {
		return "", fmt.Errorf("%w: %s id %q leaves %s", ErrBadID, what, id, dir)
	}
	return p, nil
}

// isUUID is a UUID in its canonical text form (8-4-4-4-12 hex digits),
// any version.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// CheckUUID refuses a session id given by a caller that is not a UUID, as
// Claude Code's --session-id does.
func CheckUUID(flag, id string) error {
	if !isUUID(id) {
		return fmt.Errorf("%w: %s %q is not a UUID (give one such as 123e4567-e89b-12d3-a456-426614174000, e.g. from `uuidgen`)", ErrBadID, flag, id)
	}
	return nil
}
