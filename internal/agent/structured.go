package agent

import (
	"fmt"

	"github.com/tandem-agent/tandem/internal/structured"
)

// compileSchema compiles the turn's --json-schema, if any.
func (st *turnState) compileSchema() error {
	if len(st.in.JSONSchema) == 0 {
		return nil
	}
	s, err := structured.Compile(st.in.JSONSchema)
	if err != nil {
		return fmt.Errorf("--json-schema: %w", err)
	}
	st.schema = s
	return nil
}

// checkStructured validates the final answer against the schema. A first
// failure returns the repair request to send (the model gets one more
// try, told what failed); a second ends the turn with the error.
func (st *turnState) checkStructured() (repair string, err error) {
	if st.schema == nil {
		return "", nil
	}
	out, cerr := st.schema.Check(st.lastText)
	if cerr == nil {
		st.output = out
		return "", nil
	}
	if st.repaired {
		return "", fmt.Errorf("structured output: %w (after one repair attempt)", cerr)
	}
	st.repaired = true
	return structured.RepairPrompt(cerr), nil
}
