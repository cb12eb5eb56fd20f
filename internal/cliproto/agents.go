package cliproto

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/tandem-agent/tandem/internal/subagent"
)

// The host's sub-agents come from --agents and from initialize's "agents"
// (the Agent SDK's agents option); both are validated where they enter
// (subagent.ParseHost) and join the session's agents through
// app.Options.HostAgents, over every file's.

// parseHostAgents decodes one source of the host's agents; a model is
// checked against the config in force for the working folder.
func (d *driver) parseHostAgents(raw json.RawMessage, source string) ([]*subagent.Def, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	parent := d.model
	d.mu.Unlock()
	defs, warns, err := subagent.ParseHost(raw, source, func(model string) error {
		return d.app.CheckAgentModel(model, parent, wd)
	})
	for _, w := range warns {
		d.warn("%s", w)
	}
	return defs, err
}

// flagAgents reads --agents: JSON, or the name of a file holding it (as
// Claude Code takes it).
func (d *driver) flagAgents() error {
	v := d.f.Agents
	if strings.TrimSpace(v) == "" {
		return nil
	}
	data := []byte(v)
	if !strings.HasPrefix(strings.TrimSpace(v), "{") {
		b, err := os.ReadFile(v)
		if err != nil {
			return fmt.Errorf("--agents: give the agents as JSON ({\"name\": {\"description\": ..., \"prompt\": ...}}) or a file of it: %w", err)
		}
		data = b
	}
	defs, err := d.parseHostAgents(data, "--agents")
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.agentsFlag = defs
	d.mu.Unlock()
	return nil
}

// hostAgents are the host's agents for a session being equipped:
// initialize's over --agents of the same name.
func (d *driver) hostAgents() []*subagent.Def {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := append([]*subagent.Def(nil), d.agentsInit...)
	for _, f := range d.agentsFlag {
		dup := false
		for _, i := range d.agentsInit {
			dup = dup || i.Name == f.Name
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}
