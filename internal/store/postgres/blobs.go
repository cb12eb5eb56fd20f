package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// Checkpoint file contents live in the database on PostgreSQL
// (checkpoint_blobs), content-addressed by sha256 and stored once: no
// replica of a team server needs another's disk to rewind.

// PutBlob stores data under its sha256 (hex), which it returns; storing
// the same bytes again costs no space, and renews the blob's time so a
// collection running meanwhile keeps it for the checkpoint that is about
// to refer to it.
func (s *Store) PutBlob(ctx context.Context, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if _, err := s.pool.Exec(ctx, putBlobSQL, hash, data, backend.Nanos(s.nowUTC())); err != nil {
		return "", fmt.Errorf("store checkpoint blob %s: %w", hash, err)
	}
	return hash, nil
}

// Blob returns the bytes stored under hash; an unknown hash is
// store.ErrNotFound.
func (s *Store) Blob(ctx context.Context, hash string) ([]byte, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, blobSQL, hash).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		err = store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read checkpoint blob %s: %w", hash, err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != hash {
		return nil, fmt.Errorf("read checkpoint blob %s: its content does not match its hash", hash)
	}
	return data, nil
}

// CollectBlobs deletes the blobs no checkpoint refers to that are older
// than grace (a younger one may belong to a checkpoint being recorded)
// and reports how many it deleted.
func (s *Store) CollectBlobs(ctx context.Context, grace time.Duration) (int, error) {
	tag, err := s.pool.Exec(ctx, collectBlobsSQL,
		backend.Nanos(s.nowUTC().Add(-grace)))
	if err != nil {
		return 0, fmt.Errorf("collect checkpoint blobs: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// MissingBlobs returns those of hashes the database does not hold.
func (s *Store) MissingBlobs(ctx context.Context, hashes []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, missingBlobsSQL, hashes)
	if err != nil {
		return nil, fmt.Errorf("look up checkpoint blobs: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("look up checkpoint blobs: %w", err)
	}
	return out, nil
}
