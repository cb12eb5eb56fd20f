package cliproto

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/session"
)

// handleControl answers one control request from the SDK host.
func (d *driver) handleControl(ctx context.Context, id string, raw json.RawMessage) {
	var req struct {
		Subtype            string          `json:"subtype"`
		Hooks              json.RawMessage `json:"hooks"`
		SystemPrompt       json.RawMessage `json:"systemPrompt"`
		AppendSystemPrompt string          `json:"appendSystemPrompt"`
		Mode               string          `json:"mode"`
		Model              *string         `json:"model"`
		ServerName         string          `json:"serverName"`
		Enabled            *bool           `json:"enabled"`
		SDKMCPServers      []string        `json:"sdkMcpServers"`
		UserMessageID      string          `json:"user_message_id"`
		DryRun             bool            `json:"dry_run"`
		MaxThinkingTokens  *int64          `json:"max_thinking_tokens"`
		Agents             json.RawMessage `json:"agents"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		d.ctl.fail(id, "malformed control request: "+err.Error(), "invalid_request")
		return
	}
	switch req.Subtype {
	case "initialize":
		d.initialize(id, req.Hooks, req.SystemPrompt, req.AppendSystemPrompt, req.SDKMCPServers, req.Agents)
	case "interrupt":
		d.interrupt()
		d.ctl.reply(id, map[string]any{"still_queued": []any{}})
	case "set_permission_mode":
		m, err := ParseMode(req.Mode)
		if err != nil {
			d.ctl.fail(id, err.Error(), "invalid_request")
			return
		}
		d.setMode(ctx, m)
		d.ctl.reply(id, map[string]any{"mode": modeName(m)})
	case "set_model":
		d.setModel(ctx, id, req.Model)
	case "set_max_thinking_tokens":
		d.setThinking(req.MaxThinkingTokens)
		d.ctl.reply(id, nil)
	case "mcp_status":
		d.ctl.reply(id, map[string]any{"mcpServers": d.mcpStatus()})
	case "mcp_toggle", "mcp_reconnect":
		action := "reconnect"
		if req.Subtype == "mcp_toggle" {
			action = "disable"
			if req.Enabled != nil && *req.Enabled {
				action = "enable"
			}
		}
		if err := d.mcpAction(req.ServerName, action); err != nil {
			d.ctl.fail(id, err.Error(), "")
			return
		}
		d.ctl.reply(id, nil)
	case "rewind_files":
		d.rewindFiles(ctx, id, req.UserMessageID, req.DryRun)
	case "get_context_usage":
		d.ctl.reply(id, d.contextUsage())
	default:
		d.ctl.fail(id, "Unsupported control request subtype: "+req.Subtype, "unsupported_request")
	}
}

// initialize registers the host's hooks and prompt settings and says what
// tandem offers.
func (d *driver) initialize(id string, hooks, system json.RawMessage, appendSys string, sdkServers []string, agents json.RawMessage) {
	hs, err := d.parseHooks(hooks)
	if err != nil {
		d.ctl.fail(id, err.Error(), "invalid_request")
		return
	}
	hostAgents, err := d.parseHostAgents(agents, "initialize agents")
	if err != nil {
		d.ctl.fail(id, err.Error(), "invalid_request")
		return
	}
	var sys *string
	if len(system) > 0 && string(system) != "null" {
		var s string
		var parts []string
		switch {
		case json.Unmarshal(system, &s) == nil:
		case json.Unmarshal(system, &parts) == nil:
			s = joinNonEmpty(parts...)
		default:
			d.ctl.fail(id, "initialize systemPrompt: give a string or a list of strings", "invalid_request")
			return
		}
		sys = &s
	}
	d.mu.Lock()
	d.hooks, d.appendInit, d.sdkServers, d.agentsInit = hs, appendSys, sdkServers, hostAgents
	if sys != nil && *sys != "" {
		d.systemInit = sys
	}
	d.mu.Unlock()
	commands := []map[string]any{}
	wd, _ := os.Getwd()
	for _, c := range d.app.SlashCommands(wd) {
		commands = append(commands, map[string]any{"name": c.Name, "description": c.Description, "argumentHint": c.ArgumentHint})
	}
	agentList := []map[string]any{}
	if ext, err := d.app.ExtensionsFor(wd); err == nil {
		for _, a := range ext.Agents {
			e := map[string]any{"name": a.Name, "description": a.Description}
			if a.Model != "" {
				e["model"] = a.Model
			}
			agentList = append(agentList, e)
		}
	}
	models := []map[string]any{}
	for _, m := range d.app.ModelChoices() {
		models = append(models, map[string]any{"value": m.ID, "displayName": m.Label(), "description": m.ID})
	}
	d.ctl.reply(id, map[string]any{"commands": commands, "agents": agentList, "output_style": "default",
		"available_output_styles": []string{"default"}, "models": models, "account": map[string]any{}, "pid": os.Getpid()})
}

// minThinkingBudget is the smallest budget providers accept.
const minThinkingBudget = 1024

// setThinking sets the thinking budget of the turns that follow: null or
// 0 turns thinking off, as in Claude Code.
func (d *driver) setThinking(n *int64) {
	var b int64
	if n != nil && *n > 0 {
		b = max(*n, minThinkingBudget)
	}
	d.mu.Lock()
	d.thinking = &b
	d.mu.Unlock()
}

func (d *driver) setModel(ctx context.Context, id string, model *string) {
	spec := ""
	if model != nil && *model != "default" {
		spec = normalizeModel(*model)
	}
	wd, _ := os.Getwd()
	if spec == "" {
		cfg, err := d.app.ConfigFor(wd)
		if err != nil {
			d.ctl.fail(id, err.Error(), "")
			return
		}
		spec = d.app.DefaultModel(cfg)
	}
	d.mu.Lock()
	live := d.live
	d.mu.Unlock()
	if live == nil {
		// Before the first message: checked now, used when the session opens.
		if err := d.app.CheckModel(spec, wd); err != nil {
			d.ctl.fail(id, fmt.Sprintf("model %s: %v", spec, err), "invalid_request")
			return
		}
	} else {
		var bad *session.ModelError
		if err := live.SetModel(ctx, spec); errors.As(err, &bad) {
			d.ctl.fail(id, bad.Error(), "invalid_request")
			return
		} else if err != nil {
			d.ctl.fail(id, err.Error(), "")
			return
		}
	}
	d.mu.Lock()
	d.model = spec
	d.mu.Unlock()
	d.ctl.reply(id, map[string]any{"model": bareModel(spec)})
}

func (d *driver) mcpStatus() []map[string]any {
	out := []map[string]any{}
	d.mu.Lock()
	live := d.live
	d.mu.Unlock()
	if live == nil {
		return out
	}
	list, _, _ := live.MCPStatus()
	for _, s := range list {
		e := map[string]any{"name": s.Name, "status": mcpState(s), "scope": s.Scope}
		if s.Error != "" {
			e["error"] = s.Error
		}
		if s.ServerName != "" {
			e["serverInfo"] = map[string]any{"name": s.ServerName, "version": s.ServerVersion}
		}
		tools := []map[string]any{}
		for _, t := range s.ToolNames {
			tools = append(tools, map[string]any{"name": t})
		}
		e["tools"] = tools
		out = append(out, e)
	}
	return out
}

func (d *driver) mcpAction(server, action string) error {
	d.mu.Lock()
	live := d.live
	d.mu.Unlock()
	if live == nil {
		return fmt.Errorf("no MCP servers are running yet: they start with the first user message")
	}
	return live.MCPAction(server, action)
}

// contextUsage reports how full the context window was at the last model
// call.
func (d *driver) contextUsage() map[string]any {
	d.mu.Lock()
	live := d.live
	model := d.model
	d.mu.Unlock()
	var used int64
	if live != nil {
		rec := live.Info()
		model = rec.Model
		if msgs, err := d.app.Manager.Messages(context.Background(), rec.ID); err == nil {
			for i := len(msgs) - 1; i >= 0; i-- {
				if u := msgs[i].Usage; u != nil {
					used = u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens + u.OutputTokens
					break
				}
			}
		}
	}
	var max int64
	if r, err := d.app.Catalog.Resolve(model); err == nil && r.Info != nil {
		max = r.Info.ContextWindow
	}
	pct := 0.0
	if max > 0 {
		pct = float64(used) * 100 / float64(max)
	}
	return map[string]any{"totalTokens": used, "maxTokens": max, "rawMaxTokens": max, "percentage": pct,
		"model": bareModel(model), "categories": []any{}}
}

// rewindFiles puts the workspace's files back as they were before the
// user message the host names (Claude Code's file checkpointing; tandem
// also restores what shell commands changed). The conversation is kept.
func (d *driver) rewindFiles(ctx context.Context, id, userMessageID string, dryRun bool) {
	d.mu.Lock()
	n, ok := d.checkpoints[userMessageID]
	live := d.live
	d.mu.Unlock()
	if !ok || live == nil {
		d.ctl.fail(id, fmt.Sprintf("no checkpoint for user message %q: rewind_files takes the uuid of a user message this process ran", userMessageID), "invalid_request")
		return
	}
	if dryRun {
		d.ctl.reply(id, map[string]any{"canRewind": true})
		return
	}
	res, err := d.app.Checkpoints.Rewind(ctx, live.ID(), n, checkpoint.RewindOptions{FilesOnly: true, Roots: live.Roots()})
	if err != nil {
		d.ctl.fail(id, err.Error(), "")
		return
	}
	changed := append(append([]string{}, res.Restored...), res.Removed...)
	d.ctl.reply(id, map[string]any{"canRewind": true, "filesChanged": changed})
}
