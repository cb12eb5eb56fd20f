package agent

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/turn"
)

// budgetFor is the turn's spending limit, or nil: the one it shares with
// its parent (a sub-agent's), else a new one for --max-budget-usd.
func budgetFor(in turn.Input) *turn.Budget {
	switch {
	case in.Budget != nil:
		return in.Budget
	case in.MaxBudgetUSD > 0:
		return turn.NewBudget(in.MaxBudgetUSD)
	}
	return nil
}

// overBudget says why the turn may not make another model call, or nil.
// It is asked before each call: the money goes on the call, so none is
// started once the budget is spent (the tools of the step that spent it
// still run). What sub-agents spend counts as they spend it (they share
// the budget through their call's context, see runTools). A budget that
// cannot be counted, a model's price being unknown, stops the turn too:
// running on would spend an unknown amount.
func (st *turnState) overBudget() error {
	b := st.budget
	if b == nil {
		return nil
	}
	if st.model.Cost == nil || !st.costOK {
		return fmt.Errorf("cannot keep to the $%.2f budget (--max-budget-usd): the price of %s is unknown; give it one in tandem's config (providers.NAME.models.ID.price, US dollars per million tokens: {\"input\": 3, \"output\": 15}) or run without a budget",
			b.Limit(), st.spec)
	}
	// The shared count has every model call as it is made, the turn's
	// cost also what tools spent that shared no budget (WebFetch's
	// summaries): the larger is what has gone.
	spent := b.Spent()
	if st.cost != nil {
		spent = max(spent, *st.cost)
	}
	if spent >= b.Limit() {
		return fmt.Errorf("spent $%.4f of the $%.2f budget (--max-budget-usd): stopped before the next model call", spent, b.Limit())
	}
	return nil
}

// spend counts a model call's cost against the budget.
func (st *turnState) spend(usd *float64) {
	if st.budget != nil && usd != nil {
		st.budget.Add(*usd)
	}
}
