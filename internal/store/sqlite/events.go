package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/tandem-agent/tandem/internal/store"
)

// AppendEvents stores a session's events, keeping the first copy of a
// (session, seq) already stored; then wakes this process's watchers (a
// SQLite file has no way to wake another process).
func (s *Store) AppendEvents(ctx context.Context, sessionID string, evs []store.StoredEvent) error {
	return s.appendEvents(ctx, sessionID, "", evs)
}

// AppendEventsHeld implements store.HeldEvents: the lease is checked in
// the write transaction, which no takeover can interleave with.
func (s *Store) AppendEventsHeld(ctx context.Context, sessionID, holder string, evs []store.StoredEvent) error {
	return s.appendEvents(ctx, sessionID, holder, evs)
}

func (s *Store) appendEvents(ctx context.Context, sessionID, holder string, evs []store.StoredEvent) error {
	if len(evs) == 0 {
		return nil
	}
	now := nanos(s.nowUTC())
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := sessionExists(ctx, tx, sessionID); err != nil {
			return err
		}
		if holder != "" {
			var n int
			err := tx.QueryRowContext(ctx, leaseHeldSQL, sessionID, holder).Scan(&n)
			if errors.Is(err, sql.ErrNoRows) {
				return store.ErrLeaseLost
			}
			if err != nil {
				return err
			}
		}
		st, err := tx.PrepareContext(ctx, eventsInsertSQL)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, e := range evs {
			if _, err := st.ExecContext(ctx, sessionID, e.Seq, e.Type, e.JSON, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store %d events of session %s: %w", len(evs), sessionID, err)
	}
	s.watchers.notify(sessionID, evs[len(evs)-1].Seq)
	return nil
}

// EventsAfter returns the session's events after seq after, oldest first.
func (s *Store) EventsAfter(ctx context.Context, sessionID string, after int64, limit int) ([]store.StoredEvent, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.db.QueryContext(ctx, eventsAfterSQL, sessionID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("read events of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []store.StoredEvent
	for rows.Next() {
		var e store.StoredEvent
		if err := rows.Scan(&e.Seq, &e.Type, &e.JSON); err != nil {
			return nil, fmt.Errorf("read events of session %s: %w", sessionID, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read events of session %s: %w", sessionID, err)
	}
	return out, nil
}

// LastEventSeq is the session's highest stored event seq.
func (s *Store) LastEventSeq(ctx context.Context, sessionID string) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, eventsLastSQL, sessionID).Scan(&n); err != nil {
		return 0, fmt.Errorf("read last event seq of session %s: %w", sessionID, err)
	}
	return n, nil
}

// WatchEvents calls fn after each append through this Store until ctx
// ends, and fn("", 0) once it is registered: appends made before then
// woke nobody here (store.Events).
func (s *Store) WatchEvents(ctx context.Context, fn func(sessionID string, seq int64)) error {
	id := s.watchers.add(fn)
	defer s.watchers.remove(id)
	fn("", 0)
	<-ctx.Done()
	return nil
}

// watchers are the in-process event watchers of one Store.
type watchers struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(string, int64)
}

func (w *watchers) add(fn func(string, int64)) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fns == nil {
		w.fns = map[int]func(string, int64){}
	}
	w.next++
	w.fns[w.next] = fn
	return w.next
}

func (w *watchers) remove(id int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.fns, id)
}

func (w *watchers) notify(sessionID string, seq int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, fn := range w.fns {
		fn(sessionID, seq)
	}
}
