package backend

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
)

// PrepareSession checks and fills a session about to be created, as
// store.Sessions.CreateSession documents: a generated id when empty, ids
// checked, timestamps from now when zero, the folder cleaned, totals
// empty, a known zero cost, a non-nil Meta.
func PrepareSession(sess store.Session, now func() time.Time) (store.Session, error) {
	if sess.ID == "" {
		sess.ID = NewID(store.SessionIDPrefix)
	}
	if err := store.CheckID("session", sess.ID); err != nil {
		return store.Session{}, fmt.Errorf("create session: %w", err)
	}
	if sess.ParentID != "" {
		if err := store.CheckID("parent session", sess.ParentID); err != nil {
			return store.Session{}, fmt.Errorf("create session: %w", err)
		}
	}
	if sess.ParentToolUseID != "" && sess.ParentID == "" {
		return store.Session{}, fmt.Errorf("create session: parent tool call %s without a parent session", sess.ParentToolUseID)
	}
	if sess.CreatedAt.IsZero() {
		sess.CreatedAt = now()
	}
	if sess.UpdatedAt.IsZero() {
		sess.UpdatedAt = sess.CreatedAt
	}
	sess.CreatedAt, sess.UpdatedAt = sess.CreatedAt.UTC().Round(0), sess.UpdatedAt.UTC().Round(0)
	if sess.Cwd != "" {
		sess.Cwd = filepath.Clean(sess.Cwd)
	}
	sess.Usage, sess.MessageCount = message.Usage{}, 0
	zero := 0.0
	sess.CostUSD = &zero
	if sess.Meta == nil {
		sess.Meta = map[string]string{}
	}
	return sess, nil
}

// PrefixForms are the id prefixes a session id prefix may stand for: the
// prefix itself and, when it lacks the "ses_" start, "ses_" + its lower
// case. A prefix shorter than store.MinPrefix (beside "ses_") is
// ErrNotFound with the reason.
func PrefixForms(prefix string) ([]string, error) {
	bare := strings.TrimPrefix(prefix, store.SessionIDPrefix)
	if len(bare) < store.MinPrefix {
		return nil, fmt.Errorf("%w (an id prefix needs at least %d characters)", store.ErrNotFound, store.MinPrefix)
	}
	forms := []string{prefix}
	if !strings.HasPrefix(prefix, store.SessionIDPrefix) {
		forms = append(forms, store.SessionIDPrefix+strings.ToLower(prefix))
	}
	return forms, nil
}

// PrefixShown is how many matching ids an ambiguity error names; a
// backend asks for one more, to know whether there are others.
const PrefixShown = 5

// OneMatch is the one id ids holds (in order, duplicates removed by the
// caller), ErrNotFound for none, or ErrAmbiguous naming the first few.
func OneMatch(ids []string) (string, error) {
	switch {
	case len(ids) == 0:
		return "", store.ErrNotFound
	case len(ids) == 1:
		return ids[0], nil
	}
	more := ""
	if len(ids) > PrefixShown {
		ids, more = ids[:PrefixShown], ", ..."
	}
	return "", fmt.Errorf("%w: matches %s%s; give more characters of the id",
		store.ErrAmbiguous, strings.Join(ids, ", "), more)
}

// CleanScope cleans a project path so "/a/b/" and "/a/b" are one grant
// scope.
func CleanScope(scope string) string {
	if filepath.IsAbs(scope) {
		return filepath.Clean(scope)
	}
	return scope
}

// CheckGrant refuses a grant without a scope, tool or action.
func CheckGrant(g store.Grant) error {
	switch {
	case g.Scope == "":
		return errors.New(`add grant: empty scope (use a project path or "user")`)
	case g.Tool == "":
		return errors.New("add grant: empty tool name")
	case g.Action == "":
		return errors.New("add grant: empty action")
	}
	return nil
}
