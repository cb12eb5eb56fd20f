package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
)

// TestSignInsAreStored: a browser sign-in lives in the store, not in one
// server's memory: it survives a restart, a second server over the same
// database (a replica) honours it, signing out on one ends it on the
// other at once, and the database holds only the cookie's hash.
func TestSignInsAreStored(t *testing.T) {
	o := newOIDCEnv(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hi")}})
	ann := cookieClient(t)
	if resp, page := o.signIn(ann, "ann"); resp.Request.URL.Path != "/" {
		t.Fatalf("sign-in ended at %s: %.300s", resp.Request.URL, page)
	}
	csrf := func(c *http.Client) string {
		t.Helper()
		code, data := o.api(c, "GET", "/api/me", "", nil)
		if code != 200 {
			t.Fatalf("me: %d %s", code, data)
		}
		var me struct {
			CSRF string `json:"csrf_token"`
		}
		json.Unmarshal(data, &me)
		return me.CSRF
	}
	before := csrf(ann)
	var cookie string
	for _, c := range ann.Jar.Cookies(mustURL(t, o.ts.URL)) {
		if c.Name == "tandem_token" {
			cookie = c.Value
		}
	}
	if cookie == "" {
		t.Fatal("no sign-in cookie")
	}

	// Only the hash is in the database (its files, journal included).
	files, _ := filepath.Glob(filepath.Join(o.dir, "tandem", "*.db*"))
	if len(files) == 0 {
		t.Fatalf("no database under %s", o.dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), cookie) || strings.Contains(string(data), strings.TrimPrefix(cookie, "tws_")) {
			t.Errorf("%s holds the cookie's value", f)
		}
	}

	o.restart()
	if got := csrf(ann); got != before {
		t.Errorf("after a restart the CSRF token is %q, was %q", got, before)
	}
	if code, data := o.api(ann, "POST", "/api/users", before, map[string]any{"name": "cy"}); code != 201 {
		t.Errorf("a state change after the restart: %d %s", code, data)
	}

	// A replica over the same database.
	opts := o.opts
	opts.Manager, opts.Checkpoints, opts.Extensions, opts.FlagRules = o.stack.Manager, o.stack.Checkpoints, o.stack.App, o.stack.FlagRules
	opts.ReplicaID = "second"
	second, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts2 := httptest.NewServer(second.Handler())
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		second.Shutdown(ctx)
		ts2.CloseClientConnections()
		ts2.Close()
	}()
	onSecond := func() int {
		req, _ := http.NewRequest("GET", ts2.URL+"/api/me", nil)
		req.AddCookie(&http.Cookie{Name: "tandem_token", Value: cookie})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := onSecond(); code != 200 {
		t.Fatalf("the replica refused the sign-in: %d", code)
	}
	// Event streams the sign-in opened, here and on the replica, end
	// with it.
	code, data := o.api(ann, "POST", "/api/sessions", before, map[string]string{"cwd": o.ws})
	if code != 201 {
		t.Fatalf("new session: %d %s", code, data)
	}
	var sess struct{ ID string }
	json.Unmarshal(data, &sess)
	here, stopHere := o.streamAs(cookie, sess.ID)
	defer stopHere()
	there, stopThere := (&env{t: t, ts: ts2}).streamAs(cookie, sess.ID)
	defer stopThere()
	if code, data := o.api(ann, "POST", "/api/logout", before, nil); code != 200 {
		t.Fatalf("logout: %d %s", code, data)
	}
	if code := onSecond(); code != 401 {
		t.Errorf("the replica still honours a signed-out cookie: %d", code)
	}
	ended(t, here, "the signed-out sign-in's stream")
	ended(t, there, "the signed-out sign-in's stream on the replica")
}
