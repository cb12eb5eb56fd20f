package bedrock

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

var testCreds = aws.Credentials{AccessKeyID: "AKIDTEST", SecretAccessKey: "secret", SessionToken: "session"}

var staticCreds = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return testCreds, nil })

// frame encodes one Bedrock stream chunk carrying a Messages event.
func frame(t *testing.T, enc *eventstream.Encoder, w io.Writer, event string) {
	t.Helper()
	payload, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString([]byte(event)), "p": "abc"})
	msg := eventstream.Message{Payload: payload}
	msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
	msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	msg.Headers.Set(":message-type", eventstream.StringValue("event"))
	if err := enc.Encode(w, msg); err != nil {
		t.Fatal(err)
	}
}

type capture struct {
	mu   sync.Mutex
	reqs []*http.Request
	body [][]byte
	uris []string
}

func (c *capture) add(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs, c.body, c.uris = append(c.reqs, r), append(c.body, b), append(c.uris, r.RequestURI)
	return b
}

// verifySigV4 recomputes the signature the way Bedrock does: over the
// headers the client says it signed, the path as sent, the body's hash.
func verifySigV4(t *testing.T, r *http.Request, body []byte) {
	t.Helper()
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDTEST/") || !strings.Contains(auth, "/us-west-2/bedrock/aws4_request") {
		t.Fatalf("authorization: %q", auth)
	}
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		t.Fatal(err)
	}
	re, _ := http.NewRequest(r.Method, "http://"+r.Host+r.RequestURI, bytes.NewReader(body))
	for _, h := range strings.Split(signed, ";") {
		if h != "host" {
			re.Header.Set(h, r.Header.Get(h))
		}
	}
	re.Header.Del("X-Amz-Date")
	re.Header.Del("X-Amz-Security-Token")
	re.ContentLength = int64(len(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), testCreds, re, sha(body), "bedrock", "us-west-2", when); err != nil {
		t.Fatal(err)
	}
	if re.Header.Get("Authorization") != auth {
		t.Errorf("signature does not verify:\n got  %s\n want %s", auth, re.Header.Get("Authorization"))
	}
}

func TestSigV4StreamAndRewrite(t *testing.T) {
	var c capture
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := c.add(r)
		verifySigV4(t, r, body)
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		enc := eventstream.NewEncoder()
		frame(t, enc, w, `{"type":"message_start","message":{"id":"m"}}`)
		frame(t, enc, w, `{"type":"message_stop"}`)
	}))
	defer srv.Close()
	tr := NewTransport(Options{Region: "us-west-2", Endpoint: srv.URL, Credentials: staticCreds})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages",
		strings.NewReader(`{"model":"us.anthropic.claude-sonnet-4-5-20250929-v1:0","stream":true,"max_tokens":9}`))
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Add("Anthropic-Beta", "a-1, b-2")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	sse, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	if string(sse) != want || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("translated stream (%s):\n%q", resp.Header.Get("Content-Type"), sse)
	}
	if c.uris[0] != "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream" {
		t.Errorf("path %s", c.uris[0])
	}
	var body map[string]any
	_ = json.Unmarshal(c.body[0], &body)
	betas, _ := json.Marshal(body["anthropic_beta"])
	if body["model"] != nil || body["stream"] != nil || body["anthropic_version"] != APIVersion || string(betas) != `["a-1","b-2"]` {
		t.Errorf("body %s", c.body[0])
	}
	h := c.reqs[0].Header
	if h.Get("Anthropic-Version") != "" || h.Get("Anthropic-Beta") != "" || h.Get("X-Amz-Security-Token") != "session" {
		t.Errorf("headers %v", h)
	}
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// A Bedrock API key goes as a bearer token and no AWS configuration is
// loaded at all.
func TestBearerTokenNeedsNoAWSConfig(t *testing.T) {
	var c capture
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.add(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	getenv := func(k string) string { t.Errorf("the environment was read (%s)", k); return "" }
	tr := NewTransport(Options{Region: "us-east-1", BearerToken: "ABSK-test", Endpoint: srv.URL, Getenv: getenv})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(`{"model":"anthropic.claude-haiku-4-5-20251001-v1:0"}`))
	req.Header.Set("X-Api-Key", "leak")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := c.reqs[0].Header.Get("Authorization"); got != "Bearer ABSK-test" || c.reqs[0].Header.Get("X-Api-Key") != "" {
		t.Errorf("auth %q, headers %v", got, c.reqs[0].Header)
	}
	if !strings.HasSuffix(c.uris[0], "/invoke") {
		t.Errorf("not streamed: %s", c.uris[0])
	}
}

// Exceptions inside the stream and error answers become the Messages API's
// error types, which decide whether the loop retries.
func TestErrorsTranslated(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "throttled") {
			w.Header().Set("X-Amzn-Errortype", "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"message":"Too many requests, please wait before trying again."}`)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		enc := eventstream.NewEncoder()
		frame(t, enc, w, `{"type":"message_start","message":{"id":"m"}}`)
		msg := eventstream.Message{Payload: []byte(`{"message":"Model is getting throttled."}`)}
		msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
		msg.Headers.Set(":exception-type", eventstream.StringValue("modelStreamErrorException"))
		_ = enc.Encode(w, msg)
	}))
	defer srv.Close()
	tr := NewTransport(Options{Region: "us-east-1", BearerToken: "k", Endpoint: srv.URL})

	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(`{"model":"throttled","stream":true}`))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || !strings.Contains(string(b), `"type":"rate_limit_error"`) || !strings.Contains(string(b), "Too many requests") {
		t.Errorf("%d %s", resp.StatusCode, b)
	}

	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(`{"model":"m","stream":true}`))
	resp, err = tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(b), "event: error\ndata: {\"error\":{\"message\":\"modelStreamErrorException: Model is getting throttled.\",\"type\":\"api_error\"},\"type\":\"error\"}\n\n") {
		t.Errorf("stream: %q", b)
	}
}

// Missing credentials or region are answered locally as the API would
// (401 authentication_error, 400), not sent or retried.
func TestMissingCredentialsAndRegion(t *testing.T) {
	empty := map[string]string{"HOME": t.TempDir(), "AWS_EC2_METADATA_DISABLED": "true"}
	getenv := func(k string) string { return empty[k] }
	for _, c := range []struct {
		name   string
		opt    Options
		status int
		want   string
	}{
		{"no credentials", Options{Region: "us-east-1", Getenv: getenv}, 401, "AWS_BEARER_TOKEN_BEDROCK"},
		{"no region", Options{Credentials: staticCreds, Getenv: getenv}, 400, "AWS_REGION"},
		{"no region for a key", Options{BearerToken: "k", Getenv: getenv}, 400, "AWS_REGION"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opt.Endpoint = "http://127.0.0.1:1"
			tr := NewTransport(c.opt)
			req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/v1/messages", strings.NewReader(`{"model":"m"}`))
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) {
				t.Errorf("%d %s", resp.StatusCode, b)
			}
		})
	}
}
