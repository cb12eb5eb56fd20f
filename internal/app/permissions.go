package app

import (
	"context"
	"fmt"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permission/hooks"
)

// ruleLayers are the user's and the project's permission rules for a
// session in cwd: the config files', Claude Code's settings' and the
// grants "allow always" saved (grants is where new ones go).
func (a *App) ruleLayers(ctx context.Context, s *Settings, cwd string) (user, project []permission.Rule, grants *grantStore, err error) {
	if user, err = s.perm.user.ToRules(s.perm.userFile, s.home); err != nil {
		return nil, nil, nil, err
	}
	if project, err = s.perm.project.ToRules(s.perm.projectFile, cwd); err != nil {
		return nil, nil, nil, err
	}
	grants = newGrantStore(a.Store, cwd)
	ctx = context.WithoutCancel(ctx)
	user = append(append(user, s.claude.UserRules...), grants.load(ctx, string(permission.ScopeUser))...)
	project = append(append(project, s.claude.ProjectRules...), grants.load(ctx, cwd)...)
	return user, project, grants, nil
}

// PermissionsFor is the permission engine a session in cwd would judge
// calls with (its mode, rules, protected paths and secrets), with nobody
// to ask and no hooks: for explaining what it would do
// (`tandem permissions`). mode "" is the folder's.
func (a *App) PermissionsFor(ctx context.Context, cwd, mode string) (*permission.Engine, error) {
	s, err := a.ResolveSettings(ctx, SettingsRequest{Cwd: cwd, Mode: mode})
	if err != nil {
		return nil, err
	}
	user, project, _, err := a.ruleLayers(ctx, s, s.Cwd)
	if err != nil {
		return nil, fmt.Errorf("permission rules for %s: %w", s.Cwd, err)
	}
	return permission.NewEngine(permission.EngineOptions{
		Mode: s.Mode, WorkDir: s.Cwd, HomeDir: s.home,
		UserRules: user, ProjectRules: project, FlagRules: a.FlagRules,
		ProtectedPaths: hooks.Merge(s.hooks, nil).ScriptPaths(s.Cwd), SecretFiles: a.Paths.SecretFiles(),
	}), nil
}
