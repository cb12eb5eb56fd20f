package cliproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/session"
)

// modelAliases are Claude Code's short model names.
var modelAliases = map[string]string{
	"sonnet": "anthropic/claude-sonnet-4-5",
	"opus":   "anthropic/claude-opus-4-5",
	"haiku":  "anthropic/claude-haiku-4-5",
}

func normalizeModel(m string) string {
	if full, ok := modelAliases[strings.ToLower(m)]; ok {
		return full
	}
	return m
}

func bareModel(spec string) string {
	if _, id, ok := strings.Cut(spec, "/"); ok {
		return id
	}
	return spec
}

// session opens the process's session on the first turn: new, resumed,
// continued or forked, as the flags say.
func (d *driver) session(ctx context.Context) (*session.Live, error) {
	d.mu.Lock()
	if d.live != nil {
		defer d.mu.Unlock()
		return d.live, nil
	}
	model, mode, sdkHooks := d.model, d.mode, d.hooks
	d.mu.Unlock()

	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if wd, err = d.enterWorktree(ctx, wd); err != nil {
		return nil, err
	}
	servers, err := d.mcpConfig()
	if err != nil {
		return nil, err
	}
	req := session.OpenRequest{Cwd: wd, AddDirs: d.f.AddDirs, Model: model, Mode: string(mode), ModeFromRequest: true,
		MCPServers: servers, MCPOnly: d.f.StrictMCPConfig, MCPProxy: d.mcpMessage, NewID: d.f.SessionID,
		Sinks: []event.Sink{event.SinkFunc(d.onEvent)}, MessageSinks: []func(message.Message){d.onMessage}, Hooks: sdkHooks,
		Asker: d.asker, FlagRules: d.flagRules}
	switch {
	case d.f.ForkSession && (d.f.Resume != "" || d.f.Continue):
		id, err := d.fork(ctx, wd)
		if err != nil {
			return nil, err
		}
		req.ID, req.NewID = id, ""
	case d.f.Resume != "":
		req.ID = d.f.Resume
	case d.f.Continue:
		req.Continue = true
	}
	live, err := d.app.Manager.Open(ctx, req)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.live = live
	d.mu.Unlock()
	live.WaitMCP(ctx, app.DefaultMCPWait)
	return live, nil
}

// fork copies the session --resume or --continue names into a new one
// (with --session-id as its id when given) and returns the new id.
func (d *driver) fork(ctx context.Context, cwd string) (string, error) {
	sessions := d.app.Manager
	var src session.Summary
	var err error
	if d.f.Resume != "" {
		src, err = sessions.Find(ctx, d.f.Resume)
	} else {
		src, err = sessions.Latest(ctx, cwd)
	}
	if errors.Is(err, session.ErrNotFound) {
		return "", fmt.Errorf("no session to fork: %w", err)
	}
	if err != nil {
		return "", fmt.Errorf("fork session: %w", err)
	}
	dst, err := sessions.Fork(ctx, src, d.f.SessionID)
	if err != nil {
		return "", err
	}
	return dst.ID, nil
}

// mcpConfig merges the --mcp-config values (JSON or files) into one
// "mcpServers" object. The SDK's in-process servers ("type": "sdk") are
// reached through mcp_message (see mcpMessage).
func (d *driver) mcpConfig() (json.RawMessage, error) {
	d.mu.Lock()
	inProcess := d.sdkServers
	d.mu.Unlock()
	if len(d.f.MCPConfigs) == 0 && len(inProcess) == 0 {
		return nil, nil
	}
	all := map[string]json.RawMessage{}
	for _, name := range inProcess {
		all[name] = json.RawMessage(`{"type":"sdk"}`)
	}
	for _, v := range d.f.MCPConfigs {
		data := []byte(v)
		if !strings.HasPrefix(strings.TrimSpace(v), "{") {
			b, err := os.ReadFile(v)
			if err != nil {
				return nil, fmt.Errorf("--mcp-config %s: %w", v, err)
			}
			data = b
		}
		var doc struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("--mcp-config: not a JSON object with \"mcpServers\": %w", err)
		}
		for name, entry := range doc.MCPServers {
			all[name] = entry
		}
	}
	return json.Marshal(all)
}

// parseFlagRules are --allowedTools, --disallowedTools and the permissions of
// --settings.
func (d *driver) parseFlagRules() ([]permission.Rule, error) {
	allow, deny, ask := splitTools(d.f.AllowedTools), splitTools(d.f.DisallowedTools), []string(nil)
	if d.f.Settings != "" {
		s, err := readSettings(d.f.Settings)
		if err != nil {
			return nil, err
		}
		allow, deny, ask = append(allow, s.Permissions.Allow...), append(deny, s.Permissions.Deny...), s.Permissions.Ask
		if d.f.Model == "" && s.Model != "" {
			d.model = normalizeModel(s.Model)
		}
		if s.Permissions.DefaultMode != "" && d.f.PermissionMode == "" {
			if m, err := ParseMode(s.Permissions.DefaultMode); err == nil {
				d.mode = m
			}
		}
	}
	var out []permission.Rule
	for _, set := range []struct {
		vals   []string
		action permission.Action
	}{{allow, permission.ActionAllow}, {deny, permission.ActionDeny}, {ask, permission.ActionAsk}} {
		rs, err := permission.ParseToolFlags(set.vals, set.action)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

type settings struct {
	Model       string `json:"model"`
	Permissions struct {
		Allow       []string `json:"allow"`
		Deny        []string `json:"deny"`
		Ask         []string `json:"ask"`
		DefaultMode string   `json:"defaultMode"`
	} `json:"permissions"`
}

// readSettings reads --settings, JSON or a file of it.
func readSettings(v string) (settings, error) {
	data := []byte(v)
	if !strings.HasPrefix(strings.TrimSpace(v), "{") {
		b, err := os.ReadFile(v)
		if err != nil {
			return settings{}, fmt.Errorf("--settings %s: %w", v, err)
		}
		data = b
	}
	var s settings
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("--settings: %w", err)
	}
	return s, nil
}

// splitTools splits flag values into tools and rules (see
// permission.SplitToolList).
func splitTools(vals []string) []string {
	var out []string
	for _, v := range vals {
		out = append(out, permission.SplitToolList(v)...)
	}
	return out
}

// mcpMessage carries one JSON-RPC message to an in-process server of the
// SDK host, as Claude Code does with the mcp_message control request.
func (d *driver) mcpMessage(ctx context.Context, server string, msg json.RawMessage) (json.RawMessage, error) {
	raw, err := d.ctl.request(ctx, "mcp_message", map[string]any{"server_name": server, "message": msg})
	if err != nil {
		return nil, err
	}
	var r struct {
		MCPResponse json.RawMessage `json:"mcp_response"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("mcp_message answer: %w", err)
	}
	return r.MCPResponse, nil
}
