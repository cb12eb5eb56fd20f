package cliproto

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

// sdkHookTimeout is how long a hook callback may take when the host gives
// no timeout (Claude Code's default for callback hooks).
const sdkHookTimeout = 60

// parseHooks turns initialize's hooks ({Event: [{matcher, hookCallbackIds,
// timeout}]}) into callback hooks for tandem's hooks runner, so the host's
// hooks fire where and as tandem's own do. Events tandem never fires are
// reported and left out.
func (d *driver) parseHooks(raw json.RawMessage) (hooks.Config, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var reg map[string][]struct {
		Matcher         string   `json:"matcher"`
		HookCallbackIDs []string `json:"hookCallbackIds"`
		Timeout         float64  `json:"timeout"`
	}
	if err := json.Unmarshal(raw, &reg); err != nil {
		return nil, fmt.Errorf("initialize hooks: %w", err)
	}
	cfg := hooks.Config{}
	var unknown []string
	for ev, ms := range reg {
		if !hooks.Known(ev) {
			unknown = append(unknown, ev)
			continue
		}
		for _, m := range ms {
			timeout := m.Timeout
			if timeout <= 0 {
				timeout = sdkHookTimeout
			}
			var hs []hooks.Handler
			for _, id := range m.HookCallbackIDs {
				hs = append(hs, hooks.Handler{Type: hooks.TypeCallback, ID: id, Timeout: timeout, Callback: d.hookCallback(id)})
			}
			cfg[ev] = append(cfg[ev], hooks.Matcher{Matcher: m.Matcher, Hooks: hs})
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("initialize %w", err)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		d.warn("initialize registers hooks for %v, which tandem does not fire; they will not be called", unknown)
	}
	return cfg, nil
}

// hookCallback calls the host's callback id with hook_callback and returns
// its answer, Claude Code's hook JSON output.
func (d *driver) hookCallback(id string) hooks.Callback {
	return func(ctx context.Context, in hooks.Input) (json.RawMessage, error) {
		raw, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		var input map[string]any
		if err := json.Unmarshal(raw, &input); err != nil {
			return nil, err
		}
		// The host reads Claude Code's names for the mode, and the SDKs'
		// types make transcript_path a string (tandem keeps no transcript
		// file: sessions live in its store).
		if in.PermissionMode != "" {
			input["permission_mode"] = modeName(permission.Mode(in.PermissionMode))
		}
		if _, ok := input["transcript_path"]; !ok {
			input["transcript_path"] = ""
		}
		fields := map[string]any{"callback_id": id, "input": input}
		if in.ToolUseID != "" {
			fields["tool_use_id"] = in.ToolUseID
		}
		return d.ctl.request(ctx, "hook_callback", fields)
	}
}
