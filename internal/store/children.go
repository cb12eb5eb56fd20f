package store

import (
	"context"
	"fmt"
)

// Children returns the sub-agent sessions started under parentID, oldest
// first (the order they were started in).
func (s *Store) Children(ctx context.Context, parentID string) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE parent_id = ? ORDER BY created_at, id`, parentID)
	if err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
		}
		out = append(out, sess)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sub-agents of session %s: %w", parentID, err)
	}
	return out, nil
}
