package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// stmtCache keeps the statements run on every model step prepared for the
// store's life: SQLite compiling them anew on every call was a measurable
// share of each append. A database/sql Stmt re-prepares itself on each
// pooled connection it meets once, and tx.StmtContext reuses the
// connection's copy inside a transaction.
type stmtCache struct {
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
}

// stmt returns the prepared statement for query, preparing it on first use.
// Call it before s.write: preparing while this process holds the write
// transaction would make the pool open a second connection just for that.
func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("store is closed")
	}
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

// stmtsFor prepares several statements at once (see stmt).
func (s *Store) stmtsFor(ctx context.Context, queries ...string) ([]*sql.Stmt, error) {
	out := make([]*sql.Stmt, len(queries))
	for i, q := range queries {
		st, err := s.stmt(ctx, q)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

// close releases every prepared statement; later calls fail.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, st := range c.m {
		errs = append(errs, st.Close())
	}
	c.m = nil
	return errors.Join(errs...)
}
