package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/mcp"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
	"github.com/tandem-agent/tandem/internal/tools/shell"
	"github.com/tandem-agent/tandem/internal/tools/web"
	"github.com/tandem-agent/tandem/internal/turn"
)

func shellCwd(env *tool.Env) string { return shell.CurrentDir(env) }

// toolOptions configures the built-in tools; sessionModel is the session's
// model (WebSearch through the provider's own search uses it).
func (w *wiring) toolOptions(cfg *config.Config, sessionModel func() string, sandboxed bool) tools.Options {
	fetch := web.FetchConfig{AllowPrivate: cfg.Tools.WebFetch.AllowPrivate}
	if cfg.SmallModel != "" {
		fetch.Summarizer = summarizer{models: w.app.models.resolver(cfg), spec: cfg.SmallModel}
	}
	return tools.Options{Fetch: fetch, Searcher: w.searcher(cfg, sessionModel), Secrets: w.secretPolicy(cfg), Sandboxed: sandboxed}
}

// searcher picks WebSearch's backend: the configured one, else whichever
// key is in the environment (BRAVE_API_KEY, TAVILY_API_KEY), else the
// provider's own web search (Anthropic models) with the small model or the
// session's model.
func (w *wiring) searcher(cfg *config.Config, sessionModel func() string) web.Searcher {
	ws := cfg.Tools.WebSearch
	key := ""
	if ws.APIKeyEnv != "" {
		key = w.app.opts.Getenv(ws.APIKeyEnv)
	}
	switch ws.Backend {
	case "brave":
		return &web.Brave{APIKey: firstNonEmpty(key, w.app.opts.Getenv("BRAVE_API_KEY"))}
	case "tavily":
		return &web.Tavily{APIKey: firstNonEmpty(key, w.app.opts.Getenv("TAVILY_API_KEY"))}
	}
	if s := web.SearcherFromEnv(w.app.opts.Getenv); s != nil {
		return s
	}
	return nativeSearcher{app: w.app, cfg: cfg, spec: func() (string, error) {
		if spec := firstNonEmpty(cfg.SmallModel, sessionModel(), w.app.DefaultModel(cfg)); spec != "" {
			return spec, nil
		}
		return "", fmt.Errorf("%s", web.NoBackendMessage)
	}}
}

// equipMCP starts the session's MCP servers in the background. A bad entry
// is reported and skipped; the other servers still start.
func (w *wiring) equipMCP(ctx context.Context, l *session.Live, eq *Equipment) error {
	rec := l.Snapshot()
	raw, only := l.RequestMCP()
	servers, policy := w.app.mcpServers(eq.settings, raw, only)
	eq.cli = cliMCP{servers: servers, policy: policy, on: map[string]bool{}, off: map[string]bool{}}
	if len(servers) == 0 {
		return nil
	}
	m := mcp.NewManager(mcp.Options{
		Servers:  servers,
		Policy:   policy,
		Registry: l.Tools(), Emit: l.Events().Emit, ClientName: "tandem", ClientVersion: firstNonEmpty(w.app.opts.Version, "dev"), WorkDir: rec.Cwd,
		Proxy:   mcp.ProxyFunc(l.MCPProxy()),
		BaseEnv: w.secretPolicy(eq.cfg).ScrubEnv(os.Environ()),
		Confine: eq.confine(),
		Tokens:  mcp.NewTokenStore(w.app.Paths.DataDir),
		Roots:   l.Roots(),
		Elicit:  mcpElicit(rec.ID, eq.asker),
	})
	eq.mcp = m
	eq.addExtra(func() { _ = m.Close() })
	if !w.cliRunsMCP(runtimes.Name(rec.Runtime), l, eq) {
		eq.startMCP(ctx)
	}
	return nil
}

// mcpServers are the MCP servers of a session with settings s and the
// policy that says which of them run: the user's servers from their file;
// the folder's as decoded and gated with its settings (an untrusted
// folder's without those that copy the environment into their settings);
// the caller's own (raw; only: none other). Bad entries are reported on
// stderr and skipped.
func (a *App) mcpServers(s *Settings, raw json.RawMessage, only bool) (mcp.Servers, mcp.Policy) {
	servers, settings, errs := mcp.LoadAll(mcp.Paths{User: a.Paths.UserFile()})
	// A plugin's servers have the user's scope (installing it was the
	// consent) and are the weakest: any file's server of the name wins.
	servers = mcp.Merge(s.plugins.MCP(), servers, s.mcpProject, s.mcpLocal)
	errs = append(errs, s.mcpErrs...)
	if only {
		servers = mcp.Servers{}
	}
	if len(raw) > 0 {
		// The caller's own servers (an editor's, --mcp-config) count as the
		// user's: they win over same-named config entries and need no approval.
		extra, extraErrs := mcp.ParseServers(raw, mcp.ScopeUser, "the client's MCP servers")
		servers = mcp.Merge(servers, extra)
		errs = append(errs, extraErrs...)
	}
	for _, e := range errs {
		fmt.Fprintf(a.opts.Stderr, "tandem: %v\n", e)
	}
	return servers, settings.Policy(s.Cwd, mcp.NewFileApprovals(a.Paths.DataDir), s.Mode == permission.Trust)
}

// DefaultMCPWait is how long a front end waits for a session's MCP servers
// before the first model call. Claude Code waits 30 s (MCP_TIMEOUT): a node
// or npx server can take many seconds to start on a busy machine, and the
// wait ends as soon as every server has connected or failed.
const DefaultMCPWait = 30 * time.Second

// ClaudeCodeConfig decodes and validates the "claude_code" section,
// naming its file in errors.
func ClaudeCodeConfig(c *config.Config) (claudecode.Config, error) {
	var cc claudecode.Config
	if err := decodeSection(c, "claude_code", c.ClaudeCode, &cc); err != nil {
		return cc, err
	}
	if err := cc.Validate(); err != nil {
		return cc, &config.Error{File: c.SectionSource("claude_code"), Field: "claude_code", Msg: err.Error()}
	}
	return cc, nil
}

func (w *wiring) claudeCode(name runtimes.Name, l *session.Live, eq *Equipment) (turn.Runtime, error) {
	cc, err := ClaudeCodeConfig(eq.cfg)
	if err != nil {
		return nil, err
	}
	spec := firstNonEmpty(l.Snapshot().Model, w.app.DefaultModel(eq.cfg))
	provName := "anthropic"
	var info *catalog.ModelInfo
	if res, err := w.app.Catalog.Resolve(spec); err == nil {
		provName, info = res.Provider, res.Info
	}
	pc, perr := w.app.models.providerConfig(provName, eq.cfg)
	if name == runtimes.ClaudeCode {
		// A session may be stored with claude-code before the CLI is
		// installed (or resumed natively); its turns are refused here,
		// before any request, naming both fixes.
		if err := w.app.checkClaudeCodeCLI(&Settings{Config: eq.cfg, Model: spec, Runtime: name}); err != nil {
			return nil, err
		}
	}
	if name == runtimes.Auto {
		kind := pc.Kind
		if perr != nil {
			kind = ""
		}
		sel, err := claudecode.AutoSelect(name, cc, kind)
		if err != nil || sel.Runtime != runtimes.ClaudeCode {
			return w.native(eq)
		}
	}
	if perr != nil {
		return nil, perr
	}
	servers := eq.cliServers()
	mcpJSON, err := mcp.ClaudeCodeConfigJSON(servers)
	if err != nil {
		return nil, fmt.Errorf("MCP config for claude-code: %w", err)
	}
	addDirs, agents, err := w.claudeExtras(l, eq)
	if err != nil {
		return nil, err
	}
	// The configured thinking budget and effort, as the native runtime
	// sends them; a turn's own win (claudecode applies them).
	budget, effort, err := configuredThinking(eq.cfg, info)
	if err != nil {
		return nil, err
	}
	confine, err := eq.cliConfine(cc, pc.BaseURL)
	if err != nil {
		return nil, err
	}
	rt := claudecode.New(cc, claudecode.Options{ProviderName: provName, BaseURL: pc.BaseURL, APIKey: pc.APIKey,
		AuthToken: pc.AuthToken, MCPConfig: mcpJSON, Observer: observer(eq), Hooks: eq.hookFire, Confine: confine, Denials: eq.denials(),
		// disabled_tools as deny rules: the CLI has no per-server list.
		DisallowedTools: mcp.ClaudeCodeDisallowedTools(servers), Effort: effort, ThinkingBudget: budget,
		Agents: agents, AddDirs: addDirs, PluginDirs: cliPluginDirs(eq.settings), SettingSources: w.app.settingSources(eq.settings)})
	eq.setCLIRuntime(rt)
	return rt, nil
}

// settingSources keeps the Claude Code CLI from reading the project's
// settings files when the trust check left keys of them out: the CLI would
// apply them itself (env, apiKeyHelper, statusLine, ...).
// A host's own --setting-sources is passed on as it asked.
func (a *App) settingSources(s *Settings) *string {
	if a.opts.SettingSources != nil {
		v := strings.Join(a.opts.SettingSources, ",")
		return &v
	}
	if s != nil && s.claudeLeftOut {
		v := "user"
		return &v
	}
	return nil
}

// observer is the claude-code runtime's view of the checkpoint recorder.
func observer(eq *Equipment) claudecode.ToolObserver {
	if eq.tracker == nil {
		return nil
	}
	return eq.tracker
}
