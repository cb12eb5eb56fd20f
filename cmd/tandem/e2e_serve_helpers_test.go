package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// apiClient calls a `tandem serve` started by startServe.
type apiClient struct {
	t     *testing.T
	base  string
	token string
	p     *liveProc
}

// startServe runs `tandem serve` for x with the work folder registered.
func startServe(t *testing.T, x *e2e, args ...string) *apiClient {
	t.Helper()
	addr := freeAddr(t)
	const token = "e2e-serve-token-0123456789"
	p := x.Start(append([]string{"serve", "--addr", addr, "--token", token, "--workspace", x.Work}, args...)...)
	c := &apiClient{t: t, base: "http://" + addr, token: token, p: p}
	waitListening(t, c.base)
	return c
}

// waitListening waits (10 s at most) until a `tandem serve` at base
// answers its health check.
func waitListening(t *testing.T, base string) {
	t.Helper()
	waitFor(t, "the server to listen", 30*time.Second, func() bool {
		resp, err := http.Get(base + "/api/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
}

// do sends a request and returns the status and the decoded JSON body.
func (c *apiClient) do(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// call is do for a call that must succeed.
func (c *apiClient) call(method, path string, body any) map[string]any {
	c.t.Helper()
	code, out := c.do(method, path, body)
	if code >= 300 {
		c.t.Fatalf("%s %s: %d %v", method, path, code, out)
	}
	return out
}
