package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/provider/vertex/vertextest"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// The default binary runs Claude on Bedrock and on Vertex AI, configured
// only in the user's config file and the clouds' usual credentials: a tool
// step that is throttled once (retried with a retry event), then the
// answer, priced as Anthropic's.
func TestE2ERunCloudProviders(t *testing.T) {
	t.Parallel()
	tokens := vertextest.NewTokenServer(t)
	for _, c := range []struct{ model, path, auth string }{
		{"bedrock/claude-sonnet-4-5", "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream", "Bearer ABSK-e2e"},
		{"vertex/claude-sonnet-4-5", "/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict", "Bearer " + vertextest.Token(1)},
	} {
		tool := scripted.ToolStep(scripted.Call("Read", map[string]any{"file_path": "a.txt"})).WithFault(scripted.StatusFault(429, 1))
		x := newE2E(t, scripted.Script{Steps: []scripted.Step{tool, scripted.TextStep("a.txt says hello.")}})
		x.WriteFile("a.txt", "hello\n")
		cfg, _ := json.Marshal(map[string]any{"providers": map[string]any{
			"bedrock": map[string]any{"base_url": x.url, "region": "us-east-1"},
			"vertex":  map[string]any{"base_url": x.url, "region": "us-east5", "project": "p1", "credentials_file": tokens.File},
		}})
		x.WriteConfig(string(cfg))
		x.Env = append(x.Env, "AWS_BEARER_TOKEN_BEDROCK=ABSK-e2e")
		r := x.RunStream("read a.txt", "--model", c.model)
		mustSucceed(t, r)
		res := r.Result()
		if res.Result != "a.txt says hello." || res.CostUSD == nil || *res.CostUSD <= 0 {
			t.Errorf("%s: result %+v", c.model, res)
		}
		if n := len(eventsOf(r, event.Retry)); n != 1 {
			t.Errorf("%s: %d retry events, want 1", c.model, n)
		}
		reqs := x.srv.MainRequests()
		if len(reqs) != 3 {
			t.Fatalf("%s: %d requests, want 3", c.model, len(reqs))
		}
		for _, q := range reqs {
			if q.Path != c.path || q.Header.Get("Authorization") != c.auth || q.Header.Get("X-Api-Key") != "" {
				t.Errorf("%s: request %s %v", c.model, q.Path, q.Header)
			}
		}
		if strings.Contains(r.Stderr, "ANTHROPIC_API_KEY") {
			t.Errorf("%s: asked for an Anthropic key:\n%s", c.model, r.Stderr)
		}
	}
}
