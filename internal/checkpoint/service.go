// Package checkpoint lets a user go back to before a prompt: it records,
// before each prompt runs, where the conversation stood and the prior
// content of every file the prompt's turn changes — through the file tools
// (Write, Edit, MultiEdit, NotebookEdit, by the path in their input) or
// through shell commands (found by a stat scan of the workspace around each
// call) — and rewinds files, conversation or both. Contents live in
// tandem's data folder, content-addressed by sha256, never in the user's
// working tree or git history; on a store several machines share
// (PostgreSQL, see SharedBlobs) the contents checkpoints refer to are in
// the database too. docs/rewind.md describes the design, its
// limits and its costs.
package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// Options configure a Service.
type Options struct {
	// ResumeMeta are session meta keys (a runtime's resume facts, such as
	// the Claude Code conversation id) captured at each checkpoint.
	ResumeMeta []string
	// OnRewind turns the values captured at the checkpoint rewound to into
	// the meta values to store, so the runtime resumes from there.
	OnRewind func(captured map[string]string) map[string]string
	// CollectGrace protects snapshots younger than this from collection:
	// another process may have saved them for a baseline or checkpoint it
	// has not stored yet. 0 means an hour.
	CollectGrace time.Duration
}

// Store is what the service keeps in the store: checkpoints, the
// sessions they belong to and the runtime resume facts in their meta.
type Store interface {
	store.Sessions
	store.SessionMeta
	store.Checkpoints
}

// Service owns the checkpoints of every session in one store and data
// folder.
type Service struct {
	st    Store
	dir   string
	blobs blobs
	// shared is the store's own blob keeping (PostgreSQL), nil for SQLite.
	shared SharedBlobs
	opts   Options
}

// NewService returns the service keeping snapshots under dataDir/checkpoints.
func NewService(st Store, dataDir string, opts Options) *Service {
	dir := filepath.Join(dataDir, "checkpoints")
	return &Service{st: st, dir: dir, blobs: blobs{dir: filepath.Join(dir, "blobs")}, shared: sharedOf(st), opts: opts}
}

// Tracker returns the recorder for one live session whose workspace is
// root. notice receives problems worth telling the user (never fatal).
func (s *Service) Tracker(sessionID, root string, cfg Config, notice func(string)) *Tracker {
	if notice == nil {
		notice = func(string) {}
	}
	if err := s.hideFromSearches(); err != nil {
		notice("checkpoint: " + err.Error())
	}
	return &Tracker{svc: s, session: sessionID, root: filepath.Clean(root), cfg: cfg.withDefaults(), notice: notice, noWatch: cfg.NoWatch}
}

// hideMarker keeps the snapshots out of every search: ripgrep (which tandem
// runs with --no-require-git), tandem's own walkers, git and the checkpoint
// scan itself all honour a .gitignore, and this one ignores everything
// beside it.
const hideMarker = "# tandem's file snapshots: copies of workspace files, .env files included.\n# Kept out of searches when the data folder is inside a workspace.\n*\n"

// hideFromSearches writes the marker into the snapshot folder when it is
// missing. When tandem runs in the home folder, its data folder is inside
// the workspace, and a Grep there would otherwise read back every file
// every session ever saw, under names no sensitive-path rule recognises.
func (s *Service) hideFromSearches() error {
	p := filepath.Join(s.dir, ".gitignore")
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create snapshot folder: %w", err)
	}
	if err := os.WriteFile(p, []byte(hideMarker), 0o600); err != nil {
		return fmt.Errorf("hide snapshot folder from searches: %w", err)
	}
	return nil
}

// sessionDir is the folder of one session's baseline; an id that is not a
// single safe path component is refused (store.JoinID).
func (s *Service) sessionDir(id string) (string, error) {
	return store.JoinID(filepath.Join(s.dir, "sessions"), "session", id)
}

func (s *Service) baselinePath(id string) (string, error) {
	dir, err := s.sessionDir(id)
	if err != nil {
		return "", fmt.Errorf("checkpoint baseline: %w", err)
	}
	return filepath.Join(dir, "baseline"), nil
}

// List returns a session's checkpoints, oldest first.
func (s *Service) List(ctx context.Context, sessionID string) ([]store.Checkpoint, error) {
	return s.st.Checkpoints(ctx, sessionID)
}

func (s *Service) captureResume(ctx context.Context, sessionID string) (string, error) {
	if len(s.opts.ResumeMeta) == 0 {
		return "", nil
	}
	vals := map[string]string{}
	for _, k := range s.opts.ResumeMeta {
		v, err := s.st.Meta(ctx, sessionID, k)
		if err != nil {
			return "", err
		}
		vals[k] = v
	}
	b, err := json.Marshal(vals)
	return string(b), err
}

// DeleteSession deletes a session with its checkpoints and baseline, then
// collects the snapshots nothing refers to any more.
func (s *Service) DeleteSession(ctx context.Context, id string) error {
	dir, err := s.sessionDir(id) // checked before anything is deleted
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	if err := s.st.DeleteSession(ctx, id); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("delete snapshots of session %s: %w", id, err)
	}
	_, err = s.Collect(ctx)
	return err
}

// Collect removes snapshots no checkpoint and no session baseline refers
// to, and reports how many.
func (s *Service) Collect(ctx context.Context) (int, error) {
	s.removeOrphans(ctx)
	keep, err := s.st.CheckpointHashes(ctx)
	if err != nil {
		return 0, err
	}
	if err := baselineHashes(filepath.Join(s.dir, "sessions"), keep); err != nil {
		return 0, fmt.Errorf("collect snapshots: %w", err)
	}
	grace := s.opts.CollectGrace
	if grace == 0 {
		grace = time.Hour
	}
	n, err := s.blobs.collect(keep, grace)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return n, fmt.Errorf("collect snapshots: %w", err)
	}
	if s.shared != nil {
		m, err := s.shared.CollectBlobs(ctx, grace)
		n += m
		if err != nil {
			return n, fmt.Errorf("collect snapshots: %w", err)
		}
	}
	return n, nil
}

// removeOrphans deletes the baselines of sessions that no longer exist
// (deleted by a front end that did not go through DeleteSession), so their
// snapshots can be collected.
func (s *Service) removeOrphans(ctx context.Context) {
	entries, err := os.ReadDir(filepath.Join(s.dir, "sessions"))
	if err != nil {
		return
	}
	for _, e := range entries {
		if _, err := s.st.GetSession(ctx, e.Name()); errors.Is(err, store.ErrNotFound) {
			if dir, err := s.sessionDir(e.Name()); err == nil {
				_ = os.RemoveAll(dir)
			}
		}
	}
}
