package turn

import "context"

type budgetKey struct{}

// WithBudget marks ctx with what the running turn may still spend (US
// dollars): a sub-agent started by one of its tool calls runs under it.
// Calls in parallel each get the whole remainder, so the turn can overrun
// by what they spend beyond it together; it stops before its next call.
func WithBudget(ctx context.Context, usd float64) context.Context {
	return context.WithValue(ctx, budgetKey{}, usd)
}

// BudgetFrom is the budget WithBudget set, if any.
func BudgetFrom(ctx context.Context) (float64, bool) {
	v, ok := ctx.Value(budgetKey{}).(float64)
	return v, ok
}
