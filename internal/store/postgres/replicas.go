package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/backend"
)

// Heartbeat stores the replica's state, seen now, over the heartbeats'
// own connections (beat.go); an older beat finishing late changes nothing.
func (s *Store) Heartbeat(ctx context.Context, r store.Replica) error {
	_, err := s.beats.Exec(ctx, replicaPutSQL, r.ID, r.Addr, backend.ReplicaWorkspaces(r.Workspaces), r.Running,
		backend.Nanos(r.Started), backend.Nanos(s.nowUTC()))
	if err != nil {
		return fmt.Errorf("store heartbeat of replica %s: %w", r.ID, err)
	}
	return nil
}

// ListReplicas returns the replicas seen since since.
func (s *Store) ListReplicas(ctx context.Context, since time.Time) ([]store.Replica, error) {
	rows, err := s.pool.Query(ctx, replicasListSQL, backend.Nanos(since))
	if err != nil {
		return nil, fmt.Errorf("list replicas: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Replica, error) {
		var r store.Replica
		var ws string
		var started, seen int64
		if err := row.Scan(&r.ID, &r.Addr, &ws, &r.Running, &started, &seen); err != nil {
			return r, err
		}
		var err error
		r.Workspaces, err = backend.ParseReplicaWorkspaces(ws)
		r.Started, r.Seen = backend.FromNanos(started), backend.FromNanos(seen)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("list replicas: %w", err)
	}
	return out, nil
}

// DropReplica forgets a replica.
func (s *Store) DropReplica(ctx context.Context, id string) error {
	if _, err := s.pool.Exec(ctx, replicaDeleteSQL, id); err != nil {
		return fmt.Errorf("drop replica %s: %w", id, err)
	}
	return nil
}
