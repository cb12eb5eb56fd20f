package scripted

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// bedrockClient is the official SDK's Bedrock client (its own SigV4,
// event-stream decoding and URL rewriting), pointed at the server: an
// independent check of the server's Bedrock dialect.
func bedrockClient(t *testing.T, url string) anthropic.Client {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	return anthropic.NewClient(bedrock.WithConfig(cfg), option.WithBaseURL(url), option.WithMaxRetries(0))
}

func TestBedrockEventStreamConversation(t *testing.T) {
	script := Script{Steps: []Step{
		ThinkingStep("Read the file first.", "Looking."),
		TextStep("All fixed."),
	}}
	script.Steps[0].ToolCalls = []ToolCall{Call("Read", map[string]any{"file_path": "/w/calc.py"})}
	srv, url := startServer(t, script)
	c := bedrockClient(t, url)

	p := anthropicParams()
	p.Model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	msg, err := streamAnthropic(t, c, p)
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != "tool_use" || len(msg.Content) != 3 || msg.Content[0].Type != "thinking" || msg.Content[2].Name != "Read" {
		t.Fatalf("first step: %+v", msg)
	}
	p.Messages = append(p.Messages, msg.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(msg.Content[2].ID, "print(1)", false)))
	msg, err = streamAnthropic(t, c, p)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content[0].Text != "All fixed." {
		t.Fatalf("second step: %+v", msg)
	}
	reqs := srv.MainRequests()
	if len(reqs) != 2 || reqs[1].Step != 1 || reqs[0].Model() != p.Model || !reqs[0].Stream() {
		t.Fatalf("requests: %+v", reqs)
	}
	if !strings.HasPrefix(reqs[0].Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential=AKID/") ||
		!strings.HasSuffix(reqs[0].Path, "/invoke-with-response-stream") {
		t.Errorf("request 0: %s %v %v", reqs[0].Path, reqs[0].Header, reqs[0].Body)
	}
}

// Faults speak Bedrock too: an error status carries the exception name,
// a mid-stream error is an exception frame.
func TestBedrockFaults(t *testing.T) {
	script := Script{Steps: []Step{TextStep("hello there, a longer reply")}}
	script.Steps[0].Fault = &Fault{Status: http.StatusTooManyRequests, RetryAfter: "2"}
	_, url := startServer(t, script)
	p := anthropicParams()
	p.Model = "anthropic.claude-sonnet-4-5-20250929-v1:0"
	_, err := streamAnthropic(t, bedrockClient(t, url), p)
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 429 || ae.Response.Header.Get("X-Amzn-Errortype") == "" || ae.Response.Header.Get("Retry-After") != "2" {
		t.Fatalf("throttled: %v", err)
	}

	script.Steps[0].Fault = &Fault{MidStreamError: true}
	_, url = startServer(t, script)
	_, err = streamAnthropic(t, bedrockClient(t, url), p)
	if err == nil || !strings.Contains(err.Error(), "serviceUnavailableException") {
		t.Fatalf("mid-stream: %v", err)
	}
}

func TestVertexRawPredictPath(t *testing.T) {
	srv, url := startServer(t, Script{Steps: []Step{TextStep("hi from vertex")}})
	body := anthropicBody(true)
	delete(body, "model")
	body["anthropic_version"] = "vertex-2023-10-16"
	resp := post(t, url+"/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict", body)
	if got := anthropicStreamText(t, resp); got != "hi from vertex" {
		t.Errorf("text %q", got)
	}
	reqs := srv.MainRequests()
	if len(reqs) != 1 || reqs[0].Model() != "claude-sonnet-4-5@20250929" || reqs[0].API != APIAnthropic {
		t.Errorf("%+v", reqs)
	}
	raw, _ := json.Marshal(reqs[0].Body)
	if !strings.Contains(string(raw), `"anthropic_version":"vertex-2023-10-16"`) {
		t.Errorf("body %s", raw)
	}
}
