package agent

import "fmt"

// overBudget says why the turn may not make another model call under its
// --max-budget-usd, or nil. It is asked before each call: the money goes
// on the call, so a call is never started once the turn has spent the
// budget (the tools of the step that reached it still run). A budget that
// cannot be counted, because a model's price is unknown, stops the turn
// too: running on would spend an unknown amount. Sub-agents run under
// what is left (runTools hands it down with turn.WithBudget).
func (st *turnState) overBudget() error {
	budget := st.in.MaxBudgetUSD
	if budget <= 0 {
		return nil
	}
	if st.model.Cost == nil || !st.costOK {
		return fmt.Errorf("cannot keep to the $%.2f budget (--max-budget-usd): the price of %s is unknown; give it one in tandem's config (providers.NAME.models.ID.price, US dollars per million tokens: {\"input\": 3, \"output\": 15}) or run without a budget",
			budget, st.spec)
	}
	if st.cost != nil && *st.cost >= budget {
		return fmt.Errorf("spent $%.4f of the $%.2f budget (--max-budget-usd): stopped before the next model call", *st.cost, budget)
	}
	return nil
}
