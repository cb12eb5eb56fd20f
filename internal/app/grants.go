package app

import (
	"context"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/store"
)

// grantStore keeps "allow always" answers: user scope across projects,
// project scope for this folder. Session scope lives in the engine only.
type grantStore struct {
	st      store.Grants
	project string
}

func newGrantStore(st store.Grants, project string) *grantStore {
	return &grantStore{st: st, project: project}
}

func (g *grantStore) scopeKey(s permission.Scope) string {
	if s == permission.ScopeUser {
		return store.UserScope
	}
	return g.project
}

// AddRule implements permission.GrantStore.
func (g *grantStore) AddRule(ctx context.Context, scope permission.Scope, r permission.Rule) error {
	_, err := g.st.AddGrant(ctx, store.Grant{Scope: g.scopeKey(scope), Tool: r.Permission, Pattern: r.Pattern, Action: string(r.Action)})
	return err
}

// load returns the saved grants of one scope key as rules.
func (g *grantStore) load(ctx context.Context, scope string) []permission.Rule {
	key := scope
	if scope == string(permission.ScopeUser) {
		key = store.UserScope
	}
	gs, err := g.st.ListGrants(ctx, key)
	if err != nil {
		return nil
	}
	var out []permission.Rule
	for _, gr := range gs {
		out = append(out, permission.Rule{Permission: gr.Tool, Pattern: gr.Pattern, Action: permission.Action(gr.Action), Source: "saved grant (" + gr.Scope + ")", Base: g.project})
	}
	return out
}
