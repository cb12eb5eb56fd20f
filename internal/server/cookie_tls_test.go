package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// tandem serve speaks plain HTTP; TLS is a reverse proxy's or a load
// balancer's, which says so with X-Forwarded-Proto. A sign-in over HTTPS
// gets a Secure cookie, so the browser never sends the token over plain
// HTTP; one over plain HTTP (a laptop's localhost) does not, or it would
// not be kept.
func TestLoginCookieSecureBehindTLS(t *testing.T) {
	e := newEnv(t, scripted.Script{})
	login := func(proto string) *http.Cookie {
		t.Helper()
		req, _ := http.NewRequest("POST", e.ts.URL+"/api/login", strings.NewReader(`{"token":"`+testToken+`"}`))
		req.Header.Set("Content-Type", "application/json")
		if proto != "" {
			req.Header.Set("X-Forwarded-Proto", proto)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		ck := resp.Cookies()
		if resp.StatusCode != 200 || len(ck) != 1 {
			t.Fatalf("login: %d %+v", resp.StatusCode, ck)
		}
		return ck[0]
	}
	if ck := login("https"); !ck.Secure {
		t.Errorf("a sign-in through an HTTPS proxy: cookie %+v, want Secure", ck)
	}
	if ck := login(""); ck.Secure {
		t.Errorf("a sign-in over plain HTTP: cookie %+v, want it not Secure (the browser would drop it)", ck)
	}
}
