package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/permission"
)

// Command is a slash command. The built-in ones act on the UI; custom
// commands and skills (Options.Commands) expand to a prompt. All of them
// share one list, so completion and /help show every command.
type Command struct {
	Name string // without the slash
	Args string // argument hint, e.g. "[model]"
	Help string
	// Prompt turns the arguments into the message sent.
	Prompt func(args string) string

	run func(m *model, args string) tea.Cmd
}

func builtinCommands() []Command {
	return []Command{
		{Name: "help", Help: "keys and commands", run: (*model).cmdHelp},
		{Name: "model", Args: "[provider/model]", Help: "show or change the model", run: (*model).cmdModel},
		{Name: "mode", Args: "[explore|normal|trust]", Help: "show or change the permission mode (shift+tab cycles)", run: (*model).cmdMode},
		{Name: "compact", Args: "[focus]", Help: "summarise the conversation to free context", run: (*model).cmdCompact},
		{Name: "resume", Help: "pick a session to resume", run: (*model).cmdResume},
		{Name: "permissions", Args: "[why COMMAND]", Help: "the rules in force; why: how a command or Tool(path) would be judged, and by which rule", run: (*model).cmdPermissions},
		{Name: "mcp", Help: "MCP servers: state, tools, errors; reconnect, enable, disable, approve", run: (*model).cmdMCP},
		{Name: "sandbox", Args: "allow HOST", Help: "let this session's sandboxed commands reach a host (as a sandbox refusal suggests)", run: (*model).cmdSandbox},
		{Name: "output-style", Args: "[NAME]", Help: "list the output styles, or choose one for this folder (from the next session or /clear)", run: (*model).cmdOutputStyle},
		{Name: "tasks", Args: "[stop ID]", Help: "background shells and sub-agents: status; stop one", run: (*model).cmdTasks},
		{Name: "rewind", Help: "go back to before a prompt: its files, its conversation or both (esc twice)", run: (*model).cmdRewind},
		{Name: "clear", Help: "start a new session (this one stays stored)", run: (*model).cmdClear},
		{Name: "cost", Help: "tokens and cost of this session", run: (*model).cmdCost},
		{Name: "status", Help: "session, folder, model, runtime, mode, context and MCP servers", run: (*model).cmdStatus},
		{Name: "memory", Args: "[project|user]", Help: "edit the instruction files (AGENTS.md/CLAUDE.md) in $EDITOR; a prompt starting with # adds a line", run: (*model).cmdMemory},
		{Name: "init", Args: "[focus]", Help: "have the agent write (or improve) the folder's AGENTS.md", run: (*model).cmdInit},
		{Name: "exit", Help: "quit (ctrl+c twice or ctrl+d)", run: func(m *model, _ string) tea.Cmd { return m.quit() }},
		{Name: "quit", Help: "quit, as /exit", run: func(m *model, _ string) tea.Cmd { return m.quit() }},
	}
}

// commands is the one list: built-ins first, then the extra ones; a
// built-in wins over an extra one of the same name.
func (m *model) commands() []Command {
	out := builtinCommands()
	seen := map[string]bool{}
	for _, c := range out {
		seen[c.Name] = true
	}
	for _, c := range m.opts.Commands {
		if !seen[c.Name] {
			seen[c.Name] = true
			out = append(out, c)
		}
	}
	return out
}

func (m *model) findCommand(name string) (Command, bool) {
	for _, c := range m.commands() {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// runSlash runs "/name args"; false when the text is no known command
// (then it is sent as a prompt, as "/etc/hosts is broken" should be).
func (m *model) runSlash(text string) (tea.Cmd, bool) {
	name, args, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(text), "/"), " ")
	c, ok := m.findCommand(name)
	if !ok {
		return nil, false
	}
	args = strings.TrimSpace(args)
	if c.run != nil {
		return c.run(m, args), true
	}
	if c.Prompt != nil {
		return m.submit(c.Prompt(args)), true
	}
	return nil, true
}

func (m *model) cmdHelp(string) tea.Cmd {
	var b strings.Builder
	b.WriteString("Keys: enter send · ctrl+j / shift+enter / alt+enter new line · ↑/↓ history · tab complete · " +
		"esc interrupt · shift+tab cycle mode · ctrl+o show details · pgup/pgdn scroll · ctrl+c twice or ctrl+d quit\nCommands:")
	for _, c := range m.commands() {
		fmt.Fprintf(&b, "\n  /%s %s — %s", c.Name, c.Args, c.Help)
	}
	m.tr.notice(levelInfo, b.String())
	return nil
}

func (m *model) cmdModel(args string) tea.Cmd {
	if args == "" {
		m.tr.notice(levelInfo, fmt.Sprintf("Model: %s (change with /model provider/model)", firstNonEmpty(m.info.Model, "default")))
		return nil
	}
	return m.action(func(ctx context.Context) (string, error) {
		if err := m.be.SetModel(ctx, args); err != nil {
			return "", err
		}
		return "Model: " + args, nil
	})
}

func (m *model) cmdMode(args string) tea.Cmd {
	if args == "" {
		m.tr.notice(levelInfo, fmt.Sprintf("Mode: %s (explore: read only · normal: asks before changes · trust: runs everything unasked, protected paths still ask)", m.info.Mode))
		return nil
	}
	mode, err := permission.ParseMode(args)
	if err != nil {
		m.tr.notice(levelError, err.Error())
		return nil
	}
	return m.setMode(string(mode))
}

// cmdCompact runs a "/compact [focus]" turn: the runtime summarises the
// conversation into a stored boundary (its events show as for any turn).
func (m *model) cmdCompact(focus string) tea.Cmd {
	if !m.info.CanCompact {
		m.tr.notice(levelWarn, "This build cannot compact a conversation yet: /clear starts a new session with a fresh context.")
		return nil
	}
	return m.turn(strings.TrimSpace("/compact " + focus))
}

func (m *model) cmdResume(string) tea.Cmd {
	if m.busy {
		m.tr.notice(levelWarn, "Wait for the turn to end (or esc) before switching sessions.")
		return nil
	}
	return m.openPicker()
}

func (m *model) cmdClear(string) tea.Cmd {
	if m.busy {
		m.tr.notice(levelWarn, "Wait for the turn to end (or esc) before /clear.")
		return nil
	}
	return m.switchTo("")
}
