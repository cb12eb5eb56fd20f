package bridge

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/session"
)

// help is what /help (and Telegram's /start) answer.
const help = `tandem in chat: your messages are prompts to this chat's session.
/new DIR — a new session in DIR (among the bridge's folders)
/sessions — recent sessions you can resume
/resume ID — bind this chat to a stored session
/model [NAME] — show or change the model (provider/model)
/mode [MODE] — show or change the permission mode
/stop — interrupt the running turn
/rewind [N] — list checkpoints, or go back to before prompt N
/status — the session, folder, model and mode
/cost — tokens and cost so far`

// command runs a /command.
func (b *Bridge) command(ctx context.Context, u Update) {
	name, arg, _ := strings.Cut(strings.TrimSpace(u.Text), " ")
	name, _, _ = strings.Cut(strings.ToLower(name), "@") // Telegram's /cmd@botname in groups
	arg = strings.TrimSpace(arg)
	c := b.state(u.Chat)
	reply := func(s string) { b.say(ctx, u.Chat, s) }
	switch name {
	case "/start", "/help":
		reply(help)
	case "/new":
		dir, err := b.allowedDir(arg)
		if err != nil {
			reply("⚠ " + err.Error())
			return
		}
		if b.busy(c) {
			reply("A turn is running: /stop it first.")
			return
		}
		info, err := b.open(ctx, c, session.OpenRequest{Cwd: dir, Model: b.opts.Model, Mode: b.opts.Mode})
		if err != nil {
			reply("⚠ " + err.Error())
			return
		}
		reply("New session " + describe(info))
	case "/sessions":
		b.listSessions(ctx, c, reply)
	case "/resume":
		if arg == "" {
			reply("Say which: /resume ID (/sessions lists them).")
			return
		}
		if b.busy(c) {
			reply("A turn is running: /stop it first.")
			return
		}
		s, err := b.opts.Manager.Find(ctx, arg)
		if err != nil {
			reply("⚠ " + err.Error())
			return
		}
		if !b.inFolders(s.Cwd) {
			reply("⚠ session " + s.ID + " is in " + s.Cwd + ", which is not among the folders this bridge may use")
			return
		}
		info, err := b.open(ctx, c, session.OpenRequest{ID: s.ID})
		if err != nil {
			reply("⚠ " + err.Error())
			return
		}
		reply("Resumed " + describe(info))
	case "/stop":
		if b.stopTurn(ctx, c) {
			return // the turn says "Stopped" as it ends
		}
		reply("Nothing is running.")
	default:
		b.sessionCommand(ctx, c, name, arg, reply)
	}
}

// sessionCommand runs the commands that need the chat's session.
func (b *Bridge) sessionCommand(ctx context.Context, c *chatState, name, arg string, reply func(string)) {
	switch name {
	case "/model", "/mode", "/rewind", "/status", "/cost":
	default:
		reply("Unknown command " + name + ".\n\n" + help)
		return
	}
	live, err := b.live(ctx, c)
	if err != nil {
		reply("⚠ " + err.Error())
		return
	}
	if live == nil {
		reply("This chat has no session yet: /new DIR starts one.")
		return
	}
	info := live.Info()
	switch name {
	case "/status":
		state := "idle"
		if b.busy(c) {
			state = "running a turn"
		}
		reply(fmt.Sprintf("Session %s (%s)", describe(info), state))
	case "/cost":
		cost := "unknown (a model without prices took part)"
		if info.CostUSD != nil {
			cost = fmt.Sprintf("$%.4f", *info.CostUSD)
		}
		reply(fmt.Sprintf("Cost %s; tokens: %d in, %d out, %d cache read, %d cache write", cost,
			info.Usage.InputTokens, info.Usage.OutputTokens, info.Usage.CacheReadTokens, info.Usage.CacheCreationTokens))
	case "/model":
		if arg == "" {
			reply("Model: " + info.Model)
			return
		}
		if err := live.SetModel(ctx, arg); err != nil {
			reply("⚠ " + err.Error())
			return
		}
		b.rebind(ctx, c, live)
		reply("Model: " + live.Info().Model)
	case "/mode":
		if arg == "" {
			reply("Mode: " + info.Mode)
			return
		}
		if err := live.SetMode(ctx, arg); err != nil {
			reply("⚠ " + err.Error())
			return
		}
		b.rebind(ctx, c, live)
		reply("Mode: " + live.Info().Mode)
	case "/rewind":
		b.rewind(ctx, c, live, arg, reply)
	}
}

// rebind stores the session's model and mode with the chat's binding.
func (b *Bridge) rebind(ctx context.Context, c *chatState, live *session.Live) {
	info := live.Info()
	bd := binding{SessionID: info.ID, Cwd: info.Cwd, Model: info.Model, Mode: info.Mode}
	b.mu.Lock()
	c.bd = bd
	b.mu.Unlock()
	if err := b.saveBinding(ctx, c.chat, bd); err != nil {
		b.logf("%v", err)
	}
}

func (b *Bridge) rewind(ctx context.Context, c *chatState, live *session.Live, arg string, reply func(string)) {
	if b.busy(c) {
		reply("A turn is running: /stop it first.")
		return
	}
	if arg == "" {
		cps, err := live.Checkpoints(ctx)
		if err != nil {
			reply("⚠ " + err.Error())
			return
		}
		if len(cps) == 0 {
			reply("No checkpoints yet.")
			return
		}
		var sb strings.Builder
		sb.WriteString("Checkpoints (/rewind N goes back to before prompt N):")
		for _, cp := range cps {
			fmt.Fprintf(&sb, "\n%d. %s (%d files)", cp.Number, firstLine(cp.Prompt, 60), len(cp.Files))
		}
		reply(sb.String())
		return
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 {
		reply("Say which: /rewind N, N a checkpoint's number (/rewind lists them).")
		return
	}
	res, err := live.Rewind(ctx, n, checkpoint.RewindOptions{Roots: live.Roots()})
	if err != nil {
		reply("⚠ " + err.Error())
		return
	}
	reply(fmt.Sprintf("Rewound to before prompt %d: %d files restored, %d removed, %d messages set aside.",
		res.Checkpoint, len(res.Restored), len(res.Removed), res.Messages))
}

func (b *Bridge) listSessions(ctx context.Context, c *chatState, reply func(string)) {
	// Sessions are started in folders under the bridge's (/new proj), which
	// the store's exact-folder filter would miss: the most recent ones are
	// read and those within the bridge's folders kept. The host lists
	// them: inside `tandem serve` only those the bridge's owner may see.
	ss, err := b.host.List(ctx, session.ListOptions{Limit: 500})
	if err != nil {
		reply("⚠ " + err.Error())
		return
	}
	var all []session.Summary
	for _, s := range ss {
		if b.inFolders(s.Cwd) {
			all = append(all, s)
		}
		if len(all) == 10 {
			break
		}
	}
	if len(all) == 0 {
		reply("No sessions yet: /new DIR starts one.")
		return
	}
	var sb strings.Builder
	sb.WriteString("Recent sessions (/resume ID):")
	for _, s := range all {
		fmt.Fprintf(&sb, "\n%s — %s (%s)", s.ID, firstNonEmpty(firstLine(s.Title, 60), "untitled"), s.Cwd)
	}
	reply(sb.String())
}

// busy: a turn of the chat's session runs or waits, whoever sent it.
func (b *Bridge) busy(c *chatState) bool {
	b.mu.Lock()
	att := c.att
	b.mu.Unlock()
	return att != nil && att.Busy()
}

func describe(s session.Summary) string {
	return fmt.Sprintf("%s in %s, model %s, mode %s", s.ID, s.Cwd, s.Model, s.Mode)
}
