package store

import (
	"context"
	"time"
)

// UserTurns are each user's unfinished turns on every `tandem serve`
// replica sharing the database: serve.user_max_concurrent_turns counts
// them, so the limit holds however many replicas admit a user's prompts.
type UserTurns interface {
	// AdmitTurn records turnID as one of the user's unfinished turns when
	// they have fewer than max, atomically: two replicas admitting at once
	// cannot both pass the limit. false (nothing stored) when the user has
	// max already; ErrNotFound for an unknown user.
	AdmitTurn(ctx context.Context, userID, turnID string, max int) (bool, error)
	// EndTurn forgets an admitted turn (an unknown one: no change).
	EndTurn(ctx context.Context, turnID string) error
	// AdmittedTurns returns the ids of the turns admitted before before,
	// oldest first (the sweep forgets those that no longer run).
	AdmittedTurns(ctx context.Context, before time.Time) ([]string, error)
}
