package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tandem-agent/tandem/internal/store"
)

// AppendEvents stores a session's events in one transaction, keeping the
// first copy of a (session, seq) already stored, and in the same
// transaction NOTIFYs tandem_events with "<session>:<last seq>" so every
// replica's WatchEvents wakes once it commits.
func (s *Store) AppendEvents(ctx context.Context, sessionID string, evs []store.StoredEvent) error {
	return s.appendEvents(ctx, sessionID, "", evs)
}

// AppendEventsHeld implements store.HeldEvents: the lease row is locked
// (FOR SHARE) before the events are inserted, so a takeover waits for
// this transaction or makes it store nothing.
func (s *Store) AppendEventsHeld(ctx context.Context, sessionID, holder string, evs []store.StoredEvent) error {
	return s.appendEvents(ctx, sessionID, holder, evs)
}

func (s *Store) appendEvents(ctx context.Context, sessionID, holder string, evs []store.StoredEvent) error {
	if len(evs) == 0 {
		return nil
	}
	now := s.nowUTC().UnixNano()
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if holder != "" {
			var n int
			err := tx.QueryRow(ctx, leaseHeldSQL, sessionID, holder).Scan(&n)
			if errors.Is(err, pgx.ErrNoRows) {
				return store.ErrLeaseLost
			}
			if err != nil {
				return err
			}
		}
		b := &pgx.Batch{}
		for _, e := range evs {
			b.Queue(eventsInsertSQL, sessionID, e.Seq, e.Type, e.JSON, now)
		}
		b.Queue(eventsNotifySQL, sessionID+":"+strconv.FormatInt(evs[len(evs)-1].Seq, 10))
		return tx.SendBatch(ctx, b).Close()
	})
	if isCode(err, "23503") { // no such session (or deleted meanwhile)
		err = store.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("store %d events of session %s: %w", len(evs), sessionID, err)
	}
	return nil
}

// EventsAfter returns the session's events after seq after, oldest first.
func (s *Store) EventsAfter(ctx context.Context, sessionID string, after int64, limit int) ([]store.StoredEvent, error) {
	var lim *int
	if limit > 0 {
		lim = &limit
	}
	rows, err := s.pool.Query(ctx, eventsAfterSQL, sessionID, after, lim)
	if err != nil {
		return nil, fmt.Errorf("read events of session %s: %w", sessionID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.StoredEvent, error) {
		var e store.StoredEvent
		err := r.Scan(&e.Seq, &e.Type, &e.JSON)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("read events of session %s: %w", sessionID, err)
	}
	return out, nil
}

// LastEventSeq is the session's highest stored event seq.
func (s *Store) LastEventSeq(ctx context.Context, sessionID string) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, eventsLastSQL, sessionID).Scan(&n); err != nil {
		return 0, fmt.Errorf("read last event seq of session %s: %w", sessionID, err)
	}
	return n, nil
}

// WatchEvents LISTENs on a connection of its own (not one of the pool's)
// and calls fn for each notification until ctx ends. Once each LISTEN is
// active (the first one included), fn("", 0) says notifications may have
// been missed: appends committed before it, while the connection was
// being opened or reopened after a loss, were notified to nobody here, so
// the caller re-reads what it follows. (Saying so before the LISTEN left
// a gap: a replica whose connection came up late never heard of a turn
// stored meanwhile, and its clients got none of its events.)
func (s *Store) WatchEvents(ctx context.Context, fn func(sessionID string, seq int64)) error {
	for {
		err := s.listen(ctx, fn)
		if ctx.Err() != nil {
			return nil
		}
		_ = err // reconnect; the caller re-reads on fn("", 0)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

func (s *Store) listen(ctx context.Context, fn func(string, int64)) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, eventsListenSQL); err != nil {
		return err
	}
	fn("", 0) // listening now: re-read what was appended before
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		id, seq, ok := strings.Cut(n.Payload, ":")
		v, perr := strconv.ParseInt(seq, 10, 64)
		if !ok || perr != nil {
			return errors.New("bad tandem_events payload " + strconv.Quote(n.Payload))
		}
		fn(id, v)
	}
}
