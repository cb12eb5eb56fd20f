package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tandem-agent/tandem/internal/store"
)

// CreateCheckpoint stores the next checkpoint of a session: its number
// follows the highest remaining one (after a rewind to N, the next prompt
// is N again) and its position is that of the message the prompt will be.
func (s *Store) CreateCheckpoint(ctx context.Context, sessionID, prompt, resume string) (store.Checkpoint, error) {
	cp := store.Checkpoint{SessionID: sessionID, Prompt: prompt, Resume: resume, CreatedAt: s.nowUTC()}
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := sessionExists(ctx, tx, sessionID); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, checkpointNextSQL,
			sessionID, sessionID).Scan(&cp.Number, &cp.Position)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, checkpointInsertSQL, sessionID, cp.Number, cp.Position, prompt, nanos(cp.CreatedAt), resume)
		return err
	})
	if err != nil {
		return cp, fmt.Errorf("create checkpoint of session %s: %w", sessionID, err)
	}
	return cp, nil
}

// AddCheckpointFiles records files' prior states in checkpoint number,
// except for paths the checkpoint already has (the first change of a turn
// saw the state before the prompt), and in the same transaction sets the
// files' known states (what tandem leaves them as; "" = absent).
func (s *Store) AddCheckpointFiles(ctx context.Context, sessionID string, number int, files []store.CheckpointFile, known map[string]string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		for _, f := range files {
			if _, err := tx.ExecContext(ctx, checkpointFileInsertSQL, sessionID, number, f.Path, f.State, f.Hash, f.Mode); err != nil {
				return err
			}
		}
		for p, h := range known {
			if err := putKnown(ctx, tx, sessionID, p, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record files in checkpoint %d of session %s: %w", number, sessionID, err)
	}
	return nil
}

// SetKnownFiles records what tandem left files as (hash, "" = absent).
func (s *Store) SetKnownFiles(ctx context.Context, sessionID string, known map[string]string) error {
	if len(known) == 0 {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		for p, h := range known {
			if err := putKnown(ctx, tx, sessionID, p, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record file states of session %s: %w", sessionID, err)
	}
	return nil
}

func putKnown(ctx context.Context, tx *sql.Tx, sessionID, path, hash string) error {
	_, err := tx.ExecContext(ctx, knownPutSQL, sessionID, path, hash)
	return err
}

// KnownFiles returns what tandem last left each file it changed as.
func (s *Store) KnownFiles(ctx context.Context, sessionID string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, knownListSQL, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load file states of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, h string
		if err := rows.Scan(&p, &h); err != nil {
			return nil, err
		}
		out[p] = h
	}
	return out, rows.Err()
}

// Checkpoints returns a session's checkpoints, oldest first, with files.
func (s *Store) Checkpoints(ctx context.Context, sessionID string) ([]store.Checkpoint, error) {
	if _, err := s.GetSession(ctx, sessionID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, checkpointsListSQL, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load checkpoints of session %s: %w", sessionID, err)
	}
	var out []store.Checkpoint
	idx := map[int]int{}
	for rows.Next() {
		cp := store.Checkpoint{SessionID: sessionID}
		var created int64
		if err := rows.Scan(&cp.Number, &cp.Position, &cp.Prompt, &created, &cp.Resume); err != nil {
			rows.Close()
			return nil, err
		}
		cp.CreatedAt = fromNanos(created)
		idx[cp.Number] = len(out)
		out = append(out, cp)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	frows, err := s.db.QueryContext(ctx, checkpointFilesListSQL, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint files of session %s: %w", sessionID, err)
	}
	defer frows.Close()
	for frows.Next() {
		var n int
		var f store.CheckpointFile
		if err := frows.Scan(&n, &f.Path, &f.State, &f.Hash, &f.Mode); err != nil {
			return nil, err
		}
		if i, ok := idx[n]; ok {
			out[i].Files = append(out[i].Files, f)
		}
	}
	return out, frows.Err()
}

// PruneCheckpoints keeps the newest keep checkpoints of a session and
// reports how many it deleted.
func (s *Store) PruneCheckpoints(ctx context.Context, sessionID string, keep int) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, checkpointsPruneSQL, sessionID, sessionID, keep)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune checkpoints of session %s: %w", sessionID, err)
	}
	return int(n), nil
}

// RewindConversation ends a rewind to checkpoint number: in one
// transaction it moves the messages from the checkpoint's position on to
// rewound_messages (kept until the session is deleted), drops that
// checkpoint and the later ones, and sets the given session meta values
// (runtime resume facts). It reports how many messages it moved.
func (s *Store) RewindConversation(ctx context.Context, sessionID string, number int, position int64, meta map[string]string) (int, error) {
	var moved int64
	now := nanos(s.nowUTC())
	err := s.write(ctx, func(tx *sql.Tx) error {
		n, err := truncateMessages(ctx, tx, sessionID, position, now)
		if err != nil {
			return err
		}
		moved = n
		if _, err := tx.ExecContext(ctx, checkpointsDropFromSQL, sessionID, number); err != nil {
			return err
		}
		for k, v := range meta {
			if err := putMeta(ctx, tx, sessionID, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("rewind conversation of session %s to prompt %d: %w", sessionID, number, err)
	}
	return int(moved), nil
}

// truncateMessages cuts the conversation by message position: the
// messages at position and after move aside, the rest stay untouched.
// Compaction boundaries are messages (kind "compaction") at their own
// positions, so a boundary at or after the cut, which summarises messages
// that are gone, goes with them, and one before it stays: the kept
// conversation still starts from its summary.
func truncateMessages(ctx context.Context, tx *sql.Tx, sessionID string, position, now int64) (int64, error) {
	if _, err := tx.ExecContext(ctx, rewoundInsertSQL, now, sessionID, position); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, messagesTruncateSQL, sessionID, position)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, sessionRecountSQL, sessionID, now, sessionID); err != nil {
		return 0, err
	}
	return n, nil
}

// RewoundMessageCount is how many messages rewinds have set aside.
func (s *Store) RewoundMessageCount(ctx context.Context, sessionID string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, rewoundCountSQL, sessionID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count rewound messages of session %s: %w", sessionID, err)
	}
	return n, nil
}

// CheckpointHashes returns every blob hash any checkpoint still refers to,
// for collecting the blob store.
func (s *Store) CheckpointHashes(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, checkpointHashesSQL)
	if err != nil {
		return nil, fmt.Errorf("list checkpoint blobs: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out[h] = true
	}
	return out, rows.Err()
}

// DropEmptyCheckpoint deletes checkpoint number when its turn left no
// trace: no message stored from its position on and no file recorded (a
// turn that failed before it started). Prompt numbers then stay those of
// the prompts the conversation holds.
func (s *Store) DropEmptyCheckpoint(ctx context.Context, sessionID string, number int) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, checkpointDropEmptySQL,
			sessionID, number, sessionID, number, sessionID)
		return err
	})
	if err != nil {
		return fmt.Errorf("drop empty checkpoint %d of session %s: %w", number, sessionID, err)
	}
	return nil
}
