package providers

import (
	"net/url"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

// awsEnv gives the AWS credential chain static keys from the environment
// and nothing else (no shared files, no instance metadata), so SigV4 runs
// as it would for a user with AWS_ACCESS_KEY_ID set.
func awsEnv(t *testing.T) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "",
		"AWS_PROFILE": "", "AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_BEARER_TOKEN_BEDROCK": "",
		"AWS_CONFIG_FILE": dir + "/config", "AWS_SHARED_CREDENTIALS_FILE": dir + "/credentials",
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

// recordedModel is the model id in a recorded Bedrock URL.
func recordedModel(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(u.Path, "/model/")
	m, _, _ := strings.Cut(rest, "/")
	return m
}

// Real Bedrock traffic (three Claude models): the requests we send match
// the recorded ones field by field (model and stream in the path, the
// Bedrock API version in the body), the AWS event streams are read as
// Anthropic's events, tools round-trip through two steps, and usage is
// counted.
func TestBedrockCommon(t *testing.T) {
	for _, model := range []string{"claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-6"} {
		for _, name := range []string{"simple_streaming", "tool_streaming"} {
			t.Run(model+"/"+name, func(t *testing.T) {
				awsEnv(t)
				rel := "TestBedrockCommon/bedrock-anthropic-" + model + "/" + name + ".yaml"
				c := providertest.LoadCassette(t, rel)
				id := recordedModel(t, c.Interactions[0].Request.URL)
				run := providertest.Replay(t, New, rel, provider.KindBedrock, "bedrock", providertest.ReplayOpts{
					// The recording's client left out tool_choice's
					// disable_parallel_tool_use: false, which tandem sends
					// to Anthropic (recorded and accepted there) and Bedrock
					// alike.
					Drop:  []string{"stream", "cache_control", "disable_parallel_tool_use"},
					Model: id,
					Configure: func(cfg *provider.Config) {
						cfg.APIKey = "" // SigV4 with the credential chain
						cfg.Cloud.Region = "us-east-1"
					},
				})
				for i, r := range run.Responses {
					if r.Usage.InputTokens == 0 || r.Usage.OutputTokens == 0 {
						t.Errorf("call %d usage: %+v", i, r.Usage)
					}
					h := run.Server.Headers[i]
					if !strings.HasPrefix(h.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || h.Get("X-Api-Key") != "" {
						t.Errorf("call %d auth: %v", i, h)
					}
					if want := "/model/" + id + "/invoke-with-response-stream"; run.Server.Paths[i] != want {
						t.Errorf("call %d path %s, want %s", i, run.Server.Paths[i], want)
					}
				}
				last := run.Responses[len(run.Responses)-1]
				if last.StopReason != "end_turn" || providertest.TextOf(last) == "" {
					t.Errorf("last response: %+v", last)
				}
				if name == "tool_streaming" {
					first := run.Responses[0]
					uses := message.Message{Content: first.Content}.ToolUses()
					if first.StopReason != "tool_use" || len(uses) != 1 || uses[0].Name != "weather" || !strings.Contains(string(uses[0].Input), "Florence") {
						t.Errorf("tool step: %+v", first)
					}
					if !strings.Contains(providertest.TextOf(last), "40") {
						t.Errorf("answer does not use the tool result: %q", providertest.TextOf(last))
					}
				}
			})
		}
	}
}

// A Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer token;
// no AWS credentials are needed.
func TestBedrockBasicAuth(t *testing.T) {
	awsEnv(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	rel := "TestBedrockBasicAuth/simple_streaming.yaml"
	id := recordedModel(t, providertest.LoadCassette(t, rel).Interactions[0].Request.URL)
	run := providertest.Replay(t, New, rel, provider.KindBedrock, "bedrock", providertest.ReplayOpts{
		Drop: []string{"stream", "cache_control"}, Model: id,
		Configure: func(cfg *provider.Config) { cfg.APIKey = "ABSK-test"; cfg.Cloud.Region = "us-east-1" },
	})
	r := run.Responses[0]
	if !strings.Contains(providertest.TextOf(r), "Olá") || r.StopReason != "end_turn" {
		t.Errorf("response: %+v", r)
	}
	if got := run.Server.Headers[0].Get("Authorization"); got != "Bearer ABSK-test" {
		t.Errorf("authorization %q", got)
	}
	if got := providertest.DeltaString(run.Deltas[0], provider.DeltaText); got != providertest.TextOf(r) {
		t.Errorf("deltas %q != text %q", got, providertest.TextOf(r))
	}
}
