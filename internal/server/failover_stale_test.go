package server_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/event"
)

// Two replicas on one PostgreSQL. The replica running a turn (held by a
// permission question) loses the session's lease to another runner, as
// when it stalled past the lease's TTL and its turn was taken over; then
// it goes on (the question answered) as if nothing happened. Nothing it
// produces after that reaches the stored log, its own clients or the
// stored conversation: no tool result, no text, no second result, and
// the session's last_seq stays where the log ends.
func TestStaleReplicaLateOutputIsNotStored(t *testing.T) {
	dbURL := privatePG(t)
	a, b, id, streams := askingPair(t, dbURL)
	a.send(id, "write the file")
	req := storedUntil(t, a, id, 0, isType(event.PermissionRequest))
	runner, _ := runnerOf(t, id, a, b)
	ctx := context.Background()
	stored := storedEvents(t, runner, id)
	msgs, err := runner.stack.Manager.Messages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := runner.stack.Manager.Find(ctx, id)
	if err != nil {
		t.Fatal(err)
	}

	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if tag, err := conn.Exec(ctx, `UPDATE session_leases SET holder = 'run_another_replica' WHERE session_id = $1`, id); err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("hand the session's lease to another runner: %v, %v", tag, err)
	}
	runner.mustDo("POST", "/api/sessions/"+id+"/permissions/"+req.RequestID, map[string]string{"decision": "allow_once"}, 200, nil)
	waitUntil(t, "the stale replica's turn to end", func() bool { return !runner.srv.RunningHere(id) })

	if after := storedEvents(t, runner, id); len(after) != len(stored) {
		t.Errorf("the stale replica stored %d more events: %+v", len(after)-len(stored), after[len(stored):])
	}
	if after, err := runner.stack.Manager.Messages(ctx, id); err != nil || len(after) != len(msgs) {
		t.Errorf("the stale replica recorded messages: %d before, %d after (%v)", len(msgs), len(after), err)
	}
	if after, err := runner.stack.Manager.Find(ctx, id); err != nil || after.LastSeq != rec.LastSeq {
		t.Errorf("the stale replica moved the session's last_seq from %d to %d (%v): the next runner would number after events never stored", rec.LastSeq, after.LastSeq, err)
	}
	for _, e := range drain(streams[runner]) {
		if e.Type == event.Result || e.Type == event.ToolResult || e.Type == event.Text {
			t.Errorf("a client of the stale replica got its late %s event: %+v", e.Type, e)
		}
	}
}
