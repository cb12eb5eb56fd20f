package agent

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/turn"
)

// budgetFor is the turn's spending limit, or nil: the one it shares with
// its parent (a sub-agent's), else a new one for --max-budget-usd and the
// day's ledger the caller gave (tandem serve's daily budget per user).
func budgetFor(in turn.Input) *turn.Budget {
	switch {
	case in.Budget != nil:
		return in.Budget
	case in.Ledger != nil:
		return turn.NewDayBudget(in.MaxBudgetUSD, in.Ledger)
	case in.MaxBudgetUSD > 0:
		return turn.NewBudget(in.MaxBudgetUSD)
	}
	return nil
}

// overBudget says why the turn may not make another model call, or nil.
// It is asked before each call: the money goes on the call, so none is
// started once the budget is spent (the tools of the step that spent it
// still run). What sub-agents spend counts as they spend it (they share
// the budget through their call's context, see runTools), and so does what
// the other turns sharing the day's ledger spend (read anew each time). A
// budget that cannot be counted, a model's price being unknown, stops the
// turn too: running on would spend an unknown amount.
func (st *turnState) overBudget(ctx context.Context) error {
	b := st.budget
	if b == nil {
		return nil
	}
	day := b.Day()
	if st.model.Cost == nil || !st.costOK {
		what := fmt.Sprintf("the $%.2f budget (--max-budget-usd)", b.Limit())
		if b.Limit() == 0 && day != nil {
			what = fmt.Sprintf("today's $%.2f budget (the server's daily budget per user)", day.Limit())
		}
		return fmt.Errorf("cannot keep to %s: the price of %s is unknown; give it one in tandem's config (providers.NAME.models.ID.price, US dollars per million tokens: {\"input\": 3, \"output\": 15}) or run without a budget",
			what, st.spec)
	}
	// The shared count has every model call as it is made, the turn's
	// cost also what tools spent that shared no budget (WebFetch's
	// summaries): the larger is what has gone.
	spent := b.Spent()
	if st.cost != nil {
		spent = max(spent, *st.cost)
	}
	if day != nil {
		// The day's total has every call recorded so far, this turn's and
		// its user's other turns'; what this turn spent outside the budget
		// reaches the day only at its end, so it is added here.
		total := day.Spent(ctx) + (spent - b.Spent())
		if total >= day.Limit() {
			return fmt.Errorf("spent $%.4f of today's $%.2f budget (the server's daily budget per user, all of today's turns together; it resets at 00:00 UTC): stopped before the next model call",
				total, day.Limit())
		}
	}
	if b.Limit() > 0 && spent >= b.Limit() {
		return fmt.Errorf("spent $%.4f of the $%.2f budget (--max-budget-usd): stopped before the next model call", spent, b.Limit())
	}
	return nil
}

// spend counts a model call's cost against the budget (and records it in
// the day's ledger behind it).
func (st *turnState) spend(ctx context.Context, usd *float64) {
	if st.budget != nil && usd != nil {
		st.budget.Add(ctx, *usd)
	}
}
