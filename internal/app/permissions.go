package app

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/claudecode"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/tools"
)

// engineOptions are what the permission engine of a session in cwd judges
// by: its mode, the user's and the project's rules (the config files',
// Claude Code's settings', the grants "allow always" saved; grants is
// where new ones go), the front end's flag rules for this session, the
// hook scripts it protects and tandem's secret files. The caller adds who
// is asked and what is emitted.
func (a *App) engineOptions(ctx context.Context, s *Settings, cwd string, hookCfg hooks.Config, flagRules []permission.Rule) (opts permission.EngineOptions, grants *grantStore, err error) {
	user, err := s.perm.user.ToRules(s.perm.userFile, s.home)
	if err != nil {
		return opts, nil, err
	}
	project, err := s.perm.project.ToRules(s.perm.projectFile, cwd)
	if err != nil {
		return opts, nil, err
	}
	grants = newGrantStore(a.Store, cwd)
	ctx = context.WithoutCancel(ctx)
	user = append(append(user, s.claude.UserRules...), grants.load(ctx, string(permission.ScopeUser))...)
	project = append(append(project, s.claude.ProjectRules...), grants.load(ctx, cwd)...)
	return permission.EngineOptions{
		Mode: s.Mode, WorkDir: cwd, HomeDir: s.home,
		UserRules: user, ProjectRules: project, FlagRules: flagRules,
		ProtectedPaths: append(hookCfg.ScriptPaths(cwd), pluginPaths(a, s.plugins)...), SecretFiles: a.Paths.SecretFiles(), ConfigDir: a.Paths.ConfigDir,
		Tools: tools.Lookup(),
	}, grants, nil
}

// sessionTools finds, by name, what a session's tools declare of
// themselves (the files their calls touch, whether they are contained or
// run commands): its own tools (custom and MCP tools included), then the
// Claude Code CLI's, which the claude-code runtime asks about, then
// tandem's built-in ones. The permission engine and the checkpoint
// recorder both read it.
func sessionTools(l *session.Live) tool.Lookup {
	return l.Tools().Lookup().Then(claudecode.CLITool).Then(tools.Lookup())
}

// PermissionsFor is the permission engine a session in cwd would judge
// calls with, with nobody to ask and no hooks run: for explaining what it
// would do (`tandem permissions`). mode "" is the folder's; flagRules are
// the --allowedTools / --disallowedTools a session would be opened with.
func (a *App) PermissionsFor(ctx context.Context, cwd, mode string, flagRules []permission.Rule) (*permission.Engine, error) {
	s, err := a.ResolveSettings(ctx, SettingsRequest{Cwd: cwd, Mode: mode})
	if err != nil {
		return nil, err
	}
	opts, _, err := a.engineOptions(ctx, s, s.Cwd, hooks.Merge(s.hooks), flagRules)
	if err != nil {
		return nil, fmt.Errorf("permission rules for %s: %w", s.Cwd, err)
	}
	return permission.NewEngine(opts), nil
}
