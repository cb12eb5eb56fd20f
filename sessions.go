package tandem

import (
	"context"
	"fmt"
	"time"

	"github.com/tandem-agent/tandem/internal/session"
)

// SessionInfo describes a stored session (of this program, the CLI, the
// server or the terminal UI: they share the store).
type SessionInfo struct {
	ID      string
	Dir     string
	Title   string
	Model   string
	Runtime Runtime
	Mode    PermissionMode
	// ParentID is set for a sub-agent's session: the session that ran it.
	ParentID     string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Usage        Usage
	CostUSD      *float64 // nil: unknown (a model without prices)
	MessageCount int
}

// ListOptions narrow Engine.Sessions.
type ListOptions struct {
	// Dir lists only the sessions started in this folder ("" : all).
	Dir string
	// Limit caps how many are returned (0: no cap).
	Limit int
}

// Sessions lists stored sessions, the most recently updated first.
func (e *Engine) Sessions(ctx context.Context, opts ListOptions) ([]SessionInfo, error) {
	lo := session.ListOptions{Limit: opts.Limit}
	if opts.Dir != "" {
		dir, err := session.ResolveDir(opts.Dir)
		if err != nil {
			return nil, err
		}
		lo.Cwd = dir
	}
	recs, err := e.app.Manager.List(ctx, lo)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := make([]SessionInfo, len(recs))
	for i, r := range recs {
		out[i] = SessionInfo{ID: r.ID, Dir: r.Cwd, Title: r.Title, Model: r.Model, Runtime: Runtime(r.Runtime),
			Mode: PermissionMode(r.Mode), ParentID: r.ParentID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			Usage: Usage(r.Usage), CostUSD: r.CostUSD, MessageCount: r.MessageCount}
	}
	return out, nil
}
