package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// CreateCheckpoint stores the next checkpoint of a session: its number
// follows the highest remaining one and its position is that of the
// message the prompt will be. The session's row is locked first, so two
// checkpoints (or a checkpoint and an append) never take the same number.
func (s *Store) CreateCheckpoint(ctx context.Context, sessionID, prompt, resume string) (store.Checkpoint, error) {
	cp := store.Checkpoint{SessionID: sessionID, Prompt: prompt, Resume: resume, CreatedAt: s.nowUTC()}
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockSession(ctx, tx, sessionID); err != nil {
			return err
		}
		var pos int64
		err := tx.QueryRow(ctx, createCheckpointSQL,
			sessionID).Scan(&cp.Number, &pos)
		if err != nil {
			return err
		}
		cp.Position = pos
		_, err = tx.Exec(ctx, createCheckpoint2SQL, sessionID, cp.Number, cp.Position, prompt, backend.Nanos(cp.CreatedAt), resume)
		return err
	})
	if err != nil {
		return cp, fmt.Errorf("create checkpoint of session %s: %w", sessionID, err)
	}
	return cp, nil
}

// AddCheckpointFiles records files' prior states in checkpoint number,
// except for paths the checkpoint already has, and in the same
// transaction sets the files' known states ("" = absent).
func (s *Store) AddCheckpointFiles(ctx context.Context, sessionID string, number int, files []store.CheckpointFile, known map[string]string) error {
	b := &pgx.Batch{}
	for _, f := range files {
		b.Queue(addCheckpointFilesSQL, sessionID, number, f.Path, f.State, f.Hash, int64(f.Mode))
	}
	queueKnown(b, sessionID, known)
	if err := s.sendTx(ctx, b); err != nil {
		return fmt.Errorf("record files in checkpoint %d of session %s: %w", number, sessionID, err)
	}
	return nil
}

// SetKnownFiles records what tandem left files as (hash, "" = absent).
func (s *Store) SetKnownFiles(ctx context.Context, sessionID string, known map[string]string) error {
	if len(known) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	queueKnown(b, sessionID, known)
	if err := s.sendTx(ctx, b); err != nil {
		return fmt.Errorf("record file states of session %s: %w", sessionID, err)
	}
	return nil
}

func queueKnown(b *pgx.Batch, sessionID string, known map[string]string) {
	for p, h := range known {
		b.Queue(queueKnownSQL, sessionID, p, h)
	}
}

// sendTx runs a batch of statements as one transaction in one round trip.
func (s *Store) sendTx(ctx context.Context, b *pgx.Batch) error {
	if b.Len() == 0 {
		return nil
	}
	return s.tx(ctx, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() })
}

// KnownFiles returns what tandem last left each file it changed as.
func (s *Store) KnownFiles(ctx context.Context, sessionID string) (map[string]string, error) {
	rows, err := s.pool.Query(ctx, knownFilesSQL, sessionID)
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
	rows, err := s.pool.Query(ctx, checkpointsSQL, sessionID)
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
		cp.CreatedAt = backend.FromNanos(created)
		idx[cp.Number] = len(out)
		out = append(out, cp)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	frows, err := s.pool.Query(ctx, checkpoints2SQL, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load checkpoint files of session %s: %w", sessionID, err)
	}
	defer frows.Close()
	for frows.Next() {
		var n int
		var f store.CheckpointFile
		var mode int64
		if err := frows.Scan(&n, &f.Path, &f.State, &f.Hash, &mode); err != nil {
			return nil, err
		}
		f.Mode = uint32(mode)
		if i, ok := idx[n]; ok {
			out[i].Files = append(out[i].Files, f)
		}
	}
	return out, frows.Err()
}

// PruneCheckpoints keeps the newest keep checkpoints of a session and
// reports how many it deleted.
func (s *Store) PruneCheckpoints(ctx context.Context, sessionID string, keep int) (int, error) {
	tag, err := s.pool.Exec(ctx, pruneCheckpointsSQL, sessionID, keep)
	if err != nil {
		return 0, fmt.Errorf("prune checkpoints of session %s: %w", sessionID, err)
	}
	return int(tag.RowsAffected()), nil
}

// RewindConversation ends a rewind to checkpoint number: in one
// transaction (the session's row locked, so no append interleaves) it
// moves the messages from position on to rewound_messages, drops that
// checkpoint and the later ones, and sets the given session meta values.
// It reports how many messages it moved.
func (s *Store) RewindConversation(ctx context.Context, sessionID string, number int, position int64, meta map[string]string) (int, error) {
	var moved int64
	now := backend.Nanos(s.nowUTC())
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if err := lockSession(ctx, tx, sessionID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, rewindConversationSQL, now, sessionID, position); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, rewindConversation2SQL, sessionID, position)
		if err != nil {
			return err
		}
		moved = tag.RowsAffected()
		if _, err := tx.Exec(ctx, rewindConversation3SQL, sessionID, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, rewindConversation4SQL, sessionID, number); err != nil {
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

// RewoundMessageCount is how many messages rewinds have set aside.
func (s *Store) RewoundMessageCount(ctx context.Context, sessionID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, rewoundMessageCountSQL, sessionID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count rewound messages of session %s: %w", sessionID, err)
	}
	return n, nil
}

// CheckpointHashes returns every blob hash any checkpoint still refers to.
func (s *Store) CheckpointHashes(ctx context.Context) (map[string]bool, error) {
	rows, err := s.pool.Query(ctx, checkpointHashesSQL)
	if err != nil {
		return nil, fmt.Errorf("list checkpoint blobs: %w", err)
	}
	hashes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list checkpoint blobs: %w", err)
	}
	out := make(map[string]bool, len(hashes))
	for _, h := range hashes {
		out[h] = true
	}
	return out, nil
}

// DropEmptyCheckpoint deletes checkpoint number when its turn left no
// trace: no message stored from its position on and no file recorded.
func (s *Store) DropEmptyCheckpoint(ctx context.Context, sessionID string, number int) error {
	_, err := s.pool.Exec(ctx, dropEmptyCheckpointSQL,
		sessionID, number)
	if err != nil {
		return fmt.Errorf("drop empty checkpoint %d of session %s: %w", number, sessionID, err)
	}
	return nil
}
