package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tandem-agent/tandem/internal/store"
)

// A heartbeat is stored while every connection of the store's pool is
// taken (a replica busy with its sessions' writes): it has connections
// of its own, so load on the pool cannot make a live replica look dead.
func TestHeartbeatWhilePoolIsExhausted(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	var held []*pgxpool.Conn
	for range s.pool.Config().MaxConns {
		c, err := s.pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.Heartbeat(bctx, store.Replica{ID: "r", Started: time.Now()}); err != nil {
		t.Fatalf("heartbeat with the pool exhausted: %v", err)
	}
}
