package store

import (
	"context"
	"time"
)

// Replica is one `tandem serve` process sharing the database, as its
// heartbeat last said.
type Replica struct {
	ID         string
	Addr       string   // where it listens
	Workspaces []string // the folders it can reach
	Running    int      // turns it runs now
	Started    time.Time
	Seen       time.Time // its last heartbeat
}

// Replicas keeps the serve replicas' heartbeats: which are alive, where
// they listen, what they can reach and how busy they are.
type Replicas interface {
	// Heartbeat stores r as the replica's current state, Seen = now.
	Heartbeat(ctx context.Context, r Replica) error
	// ListReplicas returns the replicas seen since since, by id.
	ListReplicas(ctx context.Context, since time.Time) ([]Replica, error)
	// DropReplica forgets a replica (one that stopped cleanly).
	DropReplica(ctx context.Context, id string) error
}
