package bedrock

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/tandem-agent/tandem/internal/provider"
)

// APIVersion is the Messages API version Bedrock takes in the body.
const APIVersion = "bedrock-2023-05-31"

// Options configure a Transport.
type Options struct {
	// Region is the AWS region (us-east-1, ...); empty: the credential
	// chain's (AWS_REGION, the profile's region).
	Region string
	// Profile is a shared-config profile; empty: AWS_PROFILE or default.
	Profile string
	// BearerToken is a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK); when set,
	// no AWS credentials are loaded and nothing is signed.
	BearerToken string
	// Endpoint replaces https://bedrock-runtime.REGION.amazonaws.com (a VPC
	// endpoint, a proxy, a test server); its path is kept as a prefix.
	Endpoint string
	// Base carries the rewritten request; http.DefaultTransport when nil.
	Base http.RoundTripper
	// Credentials, when set, are used instead of the credential chain
	// (tests, embedders with their own).
	Credentials aws.CredentialsProvider
	// Getenv reads the chain's environment; os.Getenv when nil.
	Getenv func(string) string
}

// Transport adapts Messages API requests to Bedrock. Safe for concurrent use.
type Transport struct {
	opt    Options
	signer *v4.Signer

	mu     sync.Mutex
	loaded *awsSetup // nil until a load succeeded; failures are retried
}

// NewTransport returns a Transport for o. It loads nothing yet.
func NewTransport(o Options) *Transport {
	if o.Base == nil {
		o.Base = http.DefaultTransport
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return &Transport{opt: o, signer: v4.NewSigner()}
}

// RoundTrip rewrites a Messages call; other requests (none today) go out
// unchanged but authenticated.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := provider.ReadRequestBody(req)
	if err != nil {
		return nil, fmt.Errorf("bedrock: read request body: %w", err)
	}
	region, creds, failure := t.auth(req.Context())
	if failure != nil {
		if failure.err != nil {
			return nil, failure.err
		}
		return failure.response(req), nil
	}
	out := req.Clone(req.Context())
	if err := t.target(out, region); err != nil {
		return nil, err
	}
	stream := false
	if out.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/v1/messages") {
		var model string
		body, model, stream, err = rewriteBody(body, req.Header)
		if err != nil {
			return nil, fmt.Errorf("bedrock: %w", err)
		}
		if model == "" {
			return nil, fmt.Errorf("bedrock: the request names no model")
		}
		setModelPath(out.URL, model, stream)
	}
	h := out.Header
	for _, k := range []string{"Anthropic-Version", "Anthropic-Beta", "X-Api-Key", "Authorization"} {
		h.Del(k)
	}
	h.Set("Content-Type", "application/json")
	if stream {
		h.Set("Accept", "application/vnd.amazon.eventstream")
	} else {
		h.Set("Accept", "application/json")
	}
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	if t.opt.BearerToken != "" {
		h.Set("Authorization", "Bearer "+t.opt.BearerToken)
	} else {
		sum := sha256.Sum256(body)
		if err := t.signer.SignHTTP(out.Context(), creds, out, hex.EncodeToString(sum[:]), "bedrock", region, time.Now()); err != nil {
			return nil, fmt.Errorf("bedrock: sign request: %w", err)
		}
	}
	resp, err := t.opt.Base.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	return translateResponse(resp), nil
}

// target points out at the Bedrock runtime endpoint. The adapter's base URL
// is Endpoint when one is set, so the path already carries its prefix.
func (t *Transport) target(out *http.Request, region string) error {
	endpoint := t.opt.Endpoint
	if endpoint == "" {
		endpoint = "https://bedrock-runtime." + region + ".amazonaws.com"
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return fmt.Errorf("bedrock: endpoint %q is not a URL", endpoint)
	}
	out.URL.Scheme, out.URL.Host, out.Host = u.Scheme, u.Host, u.Host
	return nil
}

// setModelPath replaces the trailing /v1/messages with Bedrock's model path.
// The model id is escaped as AWS's SDKs send it (":" as %3A); the signer
// signs that escaped form, as Bedrock expects.
func setModelPath(u *url.URL, model string, stream bool) {
	prefix := strings.TrimSuffix(u.Path, "/v1/messages")
	op := "invoke"
	if stream {
		op = "invoke-with-response-stream"
	}
	u.Path = prefix + "/model/" + model + "/" + op
	u.RawPath = prefix + "/model/" + strings.ReplaceAll(url.PathEscape(model), ":", "%3A") + "/" + op
}

// rewriteBody moves what Bedrock takes elsewhere: the model goes to the
// path, stream to the operation, the API version and betas into the body.
func rewriteBody(body []byte, h http.Header) (out []byte, model string, stream bool, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, "", false, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	if raw, ok := m["model"]; ok {
		_ = json.Unmarshal(raw, &model)
		delete(m, "model")
	}
	if raw, ok := m["stream"]; ok {
		_ = json.Unmarshal(raw, &stream)
		delete(m, "stream")
	}
	if _, ok := m["anthropic_version"]; !ok {
		m["anthropic_version"] = json.RawMessage(`"` + APIVersion + `"`)
	}
	var betas []string
	for _, v := range h.Values("Anthropic-Beta") {
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				betas = append(betas, b)
			}
		}
	}
	if len(betas) > 0 {
		raw, _ := json.Marshal(betas)
		m["anthropic_beta"] = raw
	}
	out, err = json.Marshal(m)
	return out, model, stream, err
}

// auth returns the region and, unless a bearer token is used, the
// credentials, loading the AWS configuration on first use.
func (t *Transport) auth(ctx context.Context) (string, aws.Credentials, *failure) {
	if t.opt.BearerToken != "" {
		// A Bedrock API key needs only the region, which may still come
		// from the environment or the profile.
		region := t.opt.Region
		if region == "" {
			s, _ := loadAWS(t.opt.Getenv, t.opt.Profile)
			region = s.region
		}
		if region == "" {
			return "", aws.Credentials{}, noRegion
		}
		return region, aws.Credentials{}, nil
	}
	cfg, err := t.setup()
	if err != nil {
		return "", aws.Credentials{}, &failure{status: http.StatusUnauthorized, typ: "authentication_error",
			msg: noCredentials + ": " + err.Error()}
	}
	region := cmp.Or(t.opt.Region, cfg.region)
	if region == "" {
		return "", aws.Credentials{}, noRegion
	}
	creds, err := cfg.creds.Retrieve(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return "", aws.Credentials{}, &failure{err: ctx.Err()}
		}
		return "", aws.Credentials{}, &failure{status: http.StatusUnauthorized, typ: "authentication_error",
			msg: "AWS credentials from " + cfg.source + ": " + err.Error()}
	}
	return region, creds, nil
}

var noRegion = &failure{status: http.StatusBadRequest, typ: "invalid_request_error",
	msg: "no AWS region: set \"region\" in the provider's config (or AWS_REGION)"}

const noCredentials = "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE (run `aws sso login` for SSO profiles), " +
	"or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK"

func (t *Transport) setup() (awsSetup, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.loaded != nil {
		return *t.loaded, nil
	}
	var s awsSetup
	if t.opt.Credentials != nil {
		s = awsSetup{creds: t.opt.Credentials, source: "the embedder", region: t.opt.Region}
	} else {
		var err error
		if s, err = loadAWS(t.opt.Getenv, t.opt.Profile); err != nil {
			return awsSetup{}, err
		}
	}
	t.loaded = &s
	return s, nil
}

// translateResponse turns a successful event stream into SSE. Error answers
// ({"message": ...} with x-amzn-ErrorType) get the Messages API's error
// shape so the adapter classifies them as it does Anthropic's own.
func translateResponse(resp *http.Response) *http.Response {
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode < 300 && mediaType == "application/vnd.amazon.eventstream":
		resp.Body = newSSEBody(resp.Body)
		resp.Header.Set("Content-Type", "text/event-stream")
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	case resp.StatusCode >= 400:
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		var e struct {
			Message string `json:"message"`
			Lower   string `json:"Message"`
		}
		_ = json.Unmarshal(b, &e)
		msg := cmp.Or(cmp.Or(e.Message, e.Lower), strings.TrimSpace(string(b)))
		code, _, _ := strings.Cut(resp.Header.Get("X-Amzn-Errortype"), ":")
		out := errorJSON(errorType(code, resp.StatusCode), strings.TrimSpace(cmp.Or(code, "")+" "+msg))
		resp.Body = io.NopCloser(bytes.NewReader(out))
		resp.Header.Set("Content-Type", "application/json")
		resp.Header.Del("Content-Length")
		resp.ContentLength = int64(len(out))
	}
	return resp
}

// errorType maps Bedrock's exception names (as headers or stream
// exceptions) to the Messages API's error types, which decide retrying.
func errorType(code string, status int) string {
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(code, "Exception"), "exception")) {
	case "throttling", "servicequotaexceeded":
		return "rate_limit_error"
	case "serviceunavailable", "modelnotready":
		return "overloaded_error"
	case "internalserver", "modelstreamerror":
		return "api_error"
	case "modeltimeout":
		return "timeout_error"
	case "accessdenied", "unrecognizedclient", "invalidsignature", "expiredtoken":
		return "permission_error"
	case "validation", "modelerror":
		return "invalid_request_error"
	case "resourcenotfound":
		return "not_found_error"
	}
	switch {
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

func errorJSON(typ, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	return b
}

// failure is a call that never left the machine: missing credentials or
// region. It is answered as the API would answer it (401/400 with an error
// body), so the adapter reports it as an authentication or request error
// that retrying will not fix, not as a dropped connection.
type failure struct {
	status int
	typ    string
	msg    string
	err    error
}

func (f *failure) response(req *http.Request) *http.Response {
	body := errorJSON(f.typ, "bedrock: "+f.msg)
	return provider.LocalResponse(req, f.status, body)
}
