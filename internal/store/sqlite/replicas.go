package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// Heartbeat stores the replica's state, seen now.
func (s *Store) Heartbeat(ctx context.Context, r store.Replica) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, replicaPutSQL, r.ID, r.Addr, backend.ReplicaWorkspaces(r.Workspaces), r.Running,
			nanos(r.Started), nanos(s.nowUTC()))
		return err
	})
	if err != nil {
		return fmt.Errorf("store heartbeat of replica %s: %w", r.ID, err)
	}
	return nil
}

// ListReplicas returns the replicas seen since since.
func (s *Store) ListReplicas(ctx context.Context, since time.Time) ([]store.Replica, error) {
	rows, err := s.db.QueryContext(ctx, replicasListSQL, nanos(since))
	if err != nil {
		return nil, fmt.Errorf("list replicas: %w", err)
	}
	defer rows.Close()
	var out []store.Replica
	for rows.Next() {
		var r store.Replica
		var ws string
		var started, seen int64
		if err := rows.Scan(&r.ID, &r.Addr, &ws, &r.Running, &started, &seen); err != nil {
			return nil, fmt.Errorf("list replicas: %w", err)
		}
		if r.Workspaces, err = backend.ParseReplicaWorkspaces(ws); err != nil {
			return nil, err
		}
		r.Started, r.Seen = fromNanos(started), fromNanos(seen)
		out = append(out, r)
	}
	return out, rows.Err()
}

// DropReplica forgets a replica.
func (s *Store) DropReplica(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, replicaDeleteSQL, id)
		return err
	})
}
