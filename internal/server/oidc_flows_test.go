package server

import "testing"

// GET /auth/oidc/login is public: each call starts a sign-in that waits
// in memory for its callback. Started by a script that never comes back,
// they stay bounded (each call also walks them all to prune): past
// maxOIDCFlows a new one is refused until some expire or finish.
func TestOIDCFlowsAreBounded(t *testing.T) {
	o := &oidcSignIn{flows: map[string]oidcFlow{}}
	refused := 0
	for range 2 * maxOIDCFlows {
		if _, _, ok := o.begin(); !ok {
			refused++
		}
	}
	if len(o.flows) > maxOIDCFlows || refused != maxOIDCFlows {
		t.Errorf("%d sign-ins in progress after %d started, %d refused; want at most %d kept, the rest refused", len(o.flows), 2*maxOIDCFlows, refused, maxOIDCFlows)
	}
	for state := range o.flows {
		if _, ok := o.take(state); !ok {
			t.Fatal("a kept sign-in was not taken")
		}
		break
	}
	if _, _, ok := o.begin(); !ok {
		t.Error("a sign-in finished, yet a new one is refused")
	}
}
