package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/server"
	"github.com/tandem-agent/tandem/internal/server/servertest"
	"github.com/tandem-agent/tandem/internal/trust"
)

// storeTrust serves the endpoints from a real trust list; which settings
// need trust is the application's business (tested in internal/app).
type storeTrust struct{ s *trust.Store }

func (t storeTrust) TrustStatus(dir string) (trust.Status, error) {
	root, ok, err := t.s.Trusted(dir)
	return trust.Status{Dir: dir, Trusted: ok, TrustedBy: root, NeedsTrust: []trust.Finding{}}, err
}
func (t storeTrust) TrustFolder(dir string) (string, error)          { return t.s.Add(dir) }
func (t storeTrust) RevokeFolder(dir string) (string, string, error) { return t.s.RemoveAndCheck(dir) }
func (t storeTrust) TrustedFolders() ([]string, error)               { return t.s.List() }

func TestTrustEndpoints(t *testing.T) {
	bare := newEnv(t, scripted.Script{})
	if code, _ := bare.do("GET", "/api/trust?path="+url.QueryEscape(bare.ws), nil); code != http.StatusNotImplemented {
		t.Errorf("without Options.Trust: %d", code)
	}

	store := trust.NewStore(t.TempDir())
	e := newEnv(t, scripted.Script{}, func(o *server.Options, _ *servertest.Config) { o.Trust = storeTrust{store} })
	q := "/api/trust?path=" + url.QueryEscape(e.ws)
	for _, c := range []struct {
		method, path string
		body         any
		want         int
		code         string
	}{
		{"GET", "/api/trust?path=relative/dir", nil, 400, "bad_path"},
		{"POST", "/api/trust", map[string]string{"path": "/"}, 403, "workspace_not_registered"},
		{"POST", "/api/trust", map[string]string{"path": e.ws, "extra": "x"}, 400, "bad_json"},
		{"DELETE", q, nil, 400, "trust_failed"}, // not trusted yet
	} {
		code, data := e.do(c.method, c.path, c.body)
		if code != c.want || !strings.Contains(string(data), `"`+c.code+`"`) {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, code, data, c.want, c.code)
		}
	}
	var st trust.Status
	e.mustDo("POST", "/api/trust", map[string]string{"path": e.ws}, 200, &st)
	if !st.Trusted {
		t.Errorf("after POST: %+v", st)
	}
	e.mustDo("GET", q, nil, 200, &st)
	if !st.Trusted || st.TrustedBy == "" {
		t.Errorf("GET: %+v", st)
	}
	var list struct{ Folders []string }
	e.mustDo("GET", "/api/trust", nil, 200, &list)
	if len(list.Folders) != 1 {
		t.Errorf("list: %+v", list)
	}
	e.mustDo("DELETE", q, nil, 204, nil)

	// The server's token and Origin checks guard these endpoints too.
	b, _ := json.Marshal(map[string]string{"path": e.ws})
	req, _ := http.NewRequest("POST", e.ts.URL+"/api/trust", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %v %v", resp.StatusCode, err)
	}
	req, _ = http.NewRequest("POST", e.ts.URL+"/api/trust", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("from another origin: %v %v", resp.StatusCode, err)
	}
	if l, _ := store.List(); len(l) != 0 {
		t.Errorf("a refused request trusted a folder: %v", l)
	}
}
