package agent

import "github.com/tandem-agent/tandem/internal/tool"

// addToolUsage adds what tools spent on model calls of their own (a
// sub-agent's tokens and cost) to the turn's totals, so the result event
// reports the whole turn. Called after the parallel calls have finished.
func (st *turnState) addToolUsage(results []tool.Result) {
	for _, res := range results {
		if res.Usage == nil {
			continue
		}
		st.usage = st.usage.Add(*res.Usage)
		if res.CostUnknown || res.CostUSD == nil {
			st.costOK = false
			continue
		}
		if st.costOK {
			sum := *res.CostUSD
			if st.cost != nil {
				sum += *st.cost
			}
			st.cost = &sum
		}
	}
}
