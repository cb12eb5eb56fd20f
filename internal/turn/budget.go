package turn

import (
	"context"
	"sync"
)

// Budget is what a turn may spend (Input.MaxBudgetUSD) and what it has
// spent, shared with the sub-agents its tool calls start: each model call,
// the parent's or a child's, is counted here as it is made, so calls
// running in parallel stop as soon as together they have spent it.
type Budget struct {
	limit float64
	mu    sync.Mutex
	spent float64
}

// NewBudget is a budget of limit US dollars (> 0).
func NewBudget(limit float64) *Budget { return &Budget{limit: limit} }

// Add counts usd spent.
func (b *Budget) Add(usd float64) {
	b.mu.Lock()
	b.spent += usd
	b.mu.Unlock()
}

// Spent and Limit are in US dollars.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

func (b *Budget) Limit() float64 { return b.limit }

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
