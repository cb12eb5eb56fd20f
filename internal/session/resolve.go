package session

import (
	"context"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/store"
)

// Resolver is implemented by a Wiring that decides a session's settings
// (model, runtime, mode, turn limit) from its configuration and refuses
// bad or untrusted configuration before anything is stored, so a failed
// start never leaves an empty session that --continue would pick up.
type Resolver interface {
	// Resolve receives the session as it will be stored (the request's
	// fields laid over the stored record; empty fields are the wiring's
	// to decide). checkModel asks for the model to be resolved too (a new
	// session, or a request naming a model), so a typo fails now.
	Resolve(ctx context.Context, rec store.Session, checkModel bool) (Resolved, error)
}

// Resolved is what a Resolver decided.
type Resolved struct {
	Model   string
	Runtime runtimes.Name
	Mode    permission.Mode
	// MaxTurns applies to turns run without their own limit (0: none).
	MaxTurns int
	// MaxBudgetUSD applies to turns run without their own budget (0: none).
	MaxBudgetUSD float64
	// FallbackModels apply to turns that name none.
	FallbackModels []string
	// Equip, when set, equips the session in place of Wiring.Equip, with
	// what the Resolver decided (its own typed settings, held by the
	// function), so configuration is read once per open.
	Equip func(ctx context.Context, l *Live) (Equipment, error)
}

// CheckModel resolves model with the session's folder settings, the same
// way a new session's model is checked, without changing anything (the
// server checks a PATCHed model with it). Without a Resolver it accepts.
func (l *Live) CheckModel(ctx context.Context, model string) error {
	r, ok := l.mgr.wiring.(Resolver)
	if !ok {
		return nil
	}
	rec := l.Snapshot()
	rec.Model = model
	_, err := r.Resolve(ctx, rec, true)
	return err
}
