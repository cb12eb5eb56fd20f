package server

import (
	"slices"
	"testing"
)

// TestAccessRulesCoverRoutes: every method of every route has its rule in
// accessRules and every rule names a route, so a new route cannot be
// served without deciding who may call it.
func TestAccessRulesCoverRoutes(t *testing.T) {
	rules := accessRules()
	served := map[string]bool{}
	for _, rt := range (&Server{}).apiRoutes() {
		for m := range rt.methods {
			served[m+" "+rt.path] = true
			if _, ok := rules[m+" "+rt.path]; !ok {
				t.Errorf("%s %s has no access rule in accessRules", m, rt.path)
			}
		}
	}
	var stale []string
	for k := range rules {
		if !served[k] {
			stale = append(stale, k)
		}
	}
	slices.Sort(stale)
	if len(stale) > 0 {
		t.Errorf("access rules for routes not served: %v", stale)
	}
}
