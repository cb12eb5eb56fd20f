package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// testReplicaHeartbeats: a heartbeat replaces the replica's state, one
// another handle wrote is listed, a stale one is left out, a dropped one
// is gone.
func testReplicaHeartbeats(t *testing.T, db DB) {
	ctx := context.Background()
	clock := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	a := db(func() time.Time { return clock })
	b := db(func() time.Time { return clock.Add(30 * time.Second) })
	start := clock.Add(-time.Hour)
	if err := a.Heartbeat(ctx, store.Replica{ID: "r-a", Addr: "10.0.0.1:8080", Workspaces: []string{"/w/one"}, Running: 1, Started: start}); err != nil {
		t.Fatal(err)
	}
	if err := a.Heartbeat(ctx, store.Replica{ID: "r-a", Addr: "10.0.0.1:8080", Workspaces: []string{"/w/one", "/w/two"}, Running: 3, Started: start}); err != nil {
		t.Fatal(err)
	}
	if err := b.Heartbeat(ctx, store.Replica{ID: "r-b", Addr: "10.0.0.2:8080", Started: start}); err != nil {
		t.Fatal(err)
	}
	all, err := b.ListReplicas(ctx, clock)
	if err != nil || len(all) != 2 {
		t.Fatalf("ListReplicas = %+v, %v; want r-a and r-b", all, err)
	}
	ra := all[0]
	if ra.ID != "r-a" || ra.Running != 3 || len(ra.Workspaces) != 2 || ra.Workspaces[1] != "/w/two" || !ra.Seen.Equal(clock) || !ra.Started.Equal(start) {
		t.Errorf("r-a = %+v", ra)
	}
	if len(all[1].Workspaces) != 0 || all[1].Workspaces == nil {
		t.Errorf("r-b workspaces = %#v, want an empty list", all[1].Workspaces)
	}
	fresh, err := a.ListReplicas(ctx, clock.Add(10*time.Second))
	if err != nil || len(fresh) != 1 || fresh[0].ID != "r-b" {
		t.Errorf("replicas seen in the last 20 s = %+v, %v; want r-b only", fresh, err)
	}
	if err := a.DropReplica(ctx, "r-b"); err != nil {
		t.Fatal(err)
	}
	if left, _ := a.ListReplicas(ctx, time.Time{}); len(left) != 1 || left[0].ID != "r-a" {
		t.Errorf("after dropping r-b: %+v", left)
	}
	// Beats do not wait for each other: one that started earlier and is
	// stored later changes nothing.
	if err := b.Heartbeat(ctx, store.Replica{ID: "r-a", Running: 7, Started: start}); err != nil {
		t.Fatal(err)
	}
	if err := a.Heartbeat(ctx, store.Replica{ID: "r-a", Running: 1, Started: start}); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.ListReplicas(ctx, time.Time{}); len(got) != 1 || got[0].Running != 7 || !got[0].Seen.Equal(clock.Add(30*time.Second)) {
		t.Errorf("after an older beat stored last: %+v, want the newer one's state", got)
	}
}
