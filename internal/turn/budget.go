package turn

import (
	"context"
	"sync"
)

// Budget is what a turn may spend (Input.MaxBudgetUSD) and what it has
// spent, shared with the sub-agents its tool calls start: each model call,
// the parent's or a child's, is counted here as it is made, so calls
// running in parallel stop as soon as together they have spent it.
//
// A budget may also be backed by a day's Ledger (Input.Ledger): then each
// call is recorded there too as it is made, and the turn stops once the
// day's total, every turn of the ledger's owner included, reaches the
// day's limit, whichever of the two limits comes first.
type Budget struct {
	limit float64 // 0: no limit of the turn's own, only the day's
	day   Ledger
	mu    sync.Mutex
	spent float64
}

// Ledger is a day's spending shared by several turns, which may run side
// by side and in several processes (tandem serve's daily budget per user,
// kept in its store). A Budget backed by one records every model call in
// it and reads its total before the next call.
type Ledger interface {
	// Record adds usd, just spent by a model call, to the day's total (the
	// day the call was made). What it cannot store it keeps and counts:
	// a spend is never lost.
	Record(ctx context.Context, usd float64)
	// Spent is the day's total now: what every turn sharing the ledger
	// has recorded, this one's calls included.
	Spent(ctx context.Context) float64
	// Limit is the day's limit in US dollars (> 0).
	Limit() float64
}

// NewBudget is a budget of limit US dollars (> 0).
func NewBudget(limit float64) *Budget { return &Budget{limit: limit} }

// NewDayBudget is a budget of limit US dollars (0: none of the turn's own)
// backed by day.
func NewDayBudget(limit float64, day Ledger) *Budget { return &Budget{limit: limit, day: day} }

// Add counts usd spent, and records it in the day's ledger if there is one.
func (b *Budget) Add(ctx context.Context, usd float64) {
	b.mu.Lock()
	b.spent += usd
	b.mu.Unlock()
	if b.day != nil {
		b.day.Record(ctx, usd)
	}
}

// Spent and Limit are in US dollars: what the turn (with its sub-agents)
// has spent, and its own limit (0: none, only the day's).
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

func (b *Budget) Limit() float64 { return b.limit }

// Day is the ledger backing the budget, or nil.
func (b *Budget) Day() Ledger { return b.day }

type budgetKey struct{}

// WithBudget marks ctx with the running turn's budget: a sub-agent started
// by one of its tool calls spends from it too.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetFrom is the budget WithBudget set, or nil.
func BudgetFrom(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}
