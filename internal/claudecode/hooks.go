package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// HookForwarder runs tandem's hooks for events the CLI reaches through
// hook callbacks. The CLI itself runs no hooks from settings files
// (disableAllHooksSettings), so each configured hook runs exactly once and
// under tandem's rules (folder trust, merged config).
type HookForwarder interface {
	// CLIEvents are the events to register callbacks for (tandem fires
	// SessionStart, SessionEnd, PermissionRequest and Notification itself,
	// and PreToolUse goes to the Checker).
	CLIEvents() []string
	// Forward runs the hooks of event for the CLI's hook input and returns
	// Claude Code hook JSON output for the CLI to apply.
	Forward(ctx context.Context, sessionID, event string, input json.RawMessage) (map[string]any, error)
}

// disableAllHooksSettings is a --settings layer that turns off the hooks of
// the user, project and local settings files (and plugins) in the CLI.
// Hook callbacks registered at initialize still fire. --setting-sources
// would also turn the hooks off, but it stops CLAUDE.md discovery too.
const disableAllHooksSettings = `{"disableAllHooks":true}`

// hookCallbackPrefix names the callback of each forwarded event.
const hookCallbackPrefix = "tandem_hook_"

func forwardedEvent(callbackID string) (string, bool) {
	return strings.CutPrefix(callbackID, hookCallbackPrefix)
}

// hookRegistrations is initialize's "hooks" object.
func hookRegistrations(f HookForwarder) map[string]any {
	hooks := map[string]any{
		"PreToolUse": []map[string]any{{"matcher": nil, "hookCallbackIds": []string{preToolUseHookID}}},
	}
	if f == nil {
		return hooks
	}
	for _, ev := range f.CLIEvents() {
		if ev == "PreToolUse" {
			continue
		}
		hooks[ev] = []map[string]any{{"matcher": nil, "hookCallbackIds": []string{hookCallbackPrefix + ev}}}
	}
	return hooks
}

func (c *controller) forward(ctx context.Context, callbackID string, input json.RawMessage) (any, error) {
	ev, _ := forwardedEvent(callbackID)
	if c.hooks == nil {
		return map[string]any{}, nil
	}
	out, err := c.hooks.Forward(ctx, c.session, ev, input)
	if err != nil {
		return nil, fmt.Errorf("%s hooks: %w", ev, err)
	}
	return out, nil
}
