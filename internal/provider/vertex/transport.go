package vertex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/tandem-agent/tandem/internal/provider"
)

// AnthropicVersion is the Messages API version Vertex takes in the body.
const AnthropicVersion = "vertex-2023-10-16"

// Scope is the OAuth scope Vertex AI calls need.
const Scope = "https://www.googleapis.com/auth/cloud-platform"

// DefaultLocation is used when none is configured: the global endpoint
// serves current Gemini and Claude models.
const DefaultLocation = "global"

// Options configure a Transport.
type Options struct {
	// Project is the Google Cloud project id; empty: the credentials'.
	Project string
	// Location is the region (us-east5, europe-west1, ...) or "global".
	Location string
	// CredentialsFile is a service-account (or other Google credentials)
	// JSON file; empty: application-default credentials
	// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the metadata server).
	CredentialsFile string
	// Endpoint replaces https://LOCATION-aiplatform.googleapis.com (a
	// private endpoint, a proxy, a test server).
	Endpoint string
	// Base carries the rewritten request; http.DefaultTransport when nil.
	Base http.RoundTripper
	// TokenSource, when set, is used instead of finding credentials (tests,
	// embedders with their own).
	TokenSource oauth2.TokenSource
}

// Transport adapts Gemini and Messages requests to Vertex AI. Safe for
// concurrent use.
type Transport struct {
	opt Options

	mu      sync.Mutex
	tokens  oauth2.TokenSource // nil until credentials were found
	project string
}

// NewTransport returns a Transport for o. It reads no credentials yet.
func NewTransport(o Options) *Transport {
	if o.Base == nil {
		o.Base = http.DefaultTransport
	}
	if o.Location == "" {
		o.Location = DefaultLocation
	}
	return &Transport{opt: o}
}

// Endpoint is the API root for the configured location.
func (t *Transport) Endpoint() string {
	if t.opt.Endpoint != "" {
		return strings.TrimRight(t.opt.Endpoint, "/")
	}
	switch l := t.opt.Location; l {
	case "global":
		return "https://aiplatform.googleapis.com"
	case "us", "eu":
		return "https://aiplatform." + l + ".rep.googleapis.com"
	default:
		return "https://" + l + "-aiplatform.googleapis.com"
	}
}

// RoundTrip sends a Gemini call (a path ending in /models/M:method) or a
// Messages call (a path ending in /v1/messages) to the project's endpoint.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	anthropic := strings.HasSuffix(req.URL.Path, "/v1/messages")
	src, project, fail := t.credentials(req.Context())
	if fail != nil {
		if fail.err != nil {
			return nil, fail.err
		}
		return fail.response(req, anthropic), nil
	}
	tok, err := src.Token()
	if err != nil {
		if req.Context().Err() != nil {
			return nil, req.Context().Err()
		}
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
			return (&failure{status: http.StatusUnauthorized, msg: "get an access token: " + err.Error()}).response(req, anthropic), nil
		}
		return nil, fmt.Errorf("vertex: get an access token: %w", err)
	}
	out := req.Clone(req.Context())
	body, err := provider.ReadRequestBody(req)
	if err != nil {
		return nil, fmt.Errorf("vertex: read request body: %w", err)
	}
	models := t.Endpoint() + "/v1/projects/" + url.PathEscape(project) + "/locations/" + url.PathEscape(t.opt.Location) + "/publishers/"
	if anthropic {
		model, stream, b, err := rewriteAnthropic(body)
		if err != nil {
			return nil, fmt.Errorf("vertex: %w", err)
		}
		if model == "" {
			return nil, errors.New("vertex: the request names no model")
		}
		body = b
		op := ":rawPredict"
		if stream {
			op = ":streamRawPredict"
		}
		if err := setURL(out, models+"anthropic/models/"+url.PathEscape(model)+op, ""); err != nil {
			return nil, err
		}
		out.Header.Del("Anthropic-Version")
	} else {
		_, tail, ok := strings.Cut(req.URL.Path, "/models/")
		if !ok {
			return nil, fmt.Errorf("vertex: %s is not a model call", req.URL.Path)
		}
		if err := setURL(out, models+"google/models/"+tail, req.URL.RawQuery); err != nil {
			return nil, err
		}
	}
	out.Header.Del("X-Api-Key")
	out.Header.Del("X-Goog-Api-Key")
	tok.SetAuthHeader(out)
	if body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
	}
	return t.opt.Base.RoundTrip(out)
}

func setURL(out *http.Request, raw, query string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("vertex: bad URL %q: %w", raw, err)
	}
	u.RawQuery = query
	out.URL, out.Host = u, u.Host
	return nil
}

// rewriteAnthropic takes the model out of the body (Vertex has it in the
// path) and puts the API version in.
func rewriteAnthropic(body []byte) (model string, stream bool, out []byte, err error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return "", false, nil, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	if raw, ok := m["model"]; ok {
		_ = json.Unmarshal(raw, &model)
		delete(m, "model")
	}
	if raw, ok := m["stream"]; ok {
		_ = json.Unmarshal(raw, &stream)
	}
	if _, ok := m["anthropic_version"]; !ok {
		m["anthropic_version"] = json.RawMessage(`"` + AnthropicVersion + `"`)
	}
	out, err = json.Marshal(m)
	return model, stream, out, err
}

// credentials finds the token source and project once; a failure is not
// kept, so fixing the environment helps the next call.
func (t *Transport) credentials(ctx context.Context) (oauth2.TokenSource, string, *failure) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tokens != nil {
		return t.tokens, t.project, nil
	}
	src, project := t.opt.TokenSource, t.opt.Project
	if src == nil {
		// Token refreshes outlive this call, so they must not use its
		// context; the HTTP client is the base transport's.
		bg := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: t.opt.Base})
		var creds *google.Credentials
		var err error
		if f := t.opt.CredentialsFile; f != "" {
			creds, err = fromFile(bg, f)
		} else {
			creds, err = google.FindDefaultCredentials(bg, Scope)
			if err != nil {
				err = fmt.Errorf("no Google credentials: run `gcloud auth application-default login`, set GOOGLE_APPLICATION_CREDENTIALS, or set credentials_file in the provider's config (%v)", err)
			}
		}
		if ctx.Err() != nil {
			return nil, "", &failure{err: ctx.Err()}
		}
		if err != nil {
			return nil, "", &failure{status: http.StatusUnauthorized, msg: err.Error()}
		}
		src = creds.TokenSource
		if project == "" {
			project = creds.ProjectID
		}
	}
	if project == "" {
		return nil, "", &failure{status: http.StatusBadRequest,
			msg: "no Google Cloud project: set \"project\" in the provider's config (or GOOGLE_CLOUD_PROJECT)"}
	}
	t.tokens, t.project = oauth2.ReuseTokenSource(nil, src), project
	return t.tokens, t.project, nil
}

// fromFile reads a credentials file of any type Google issues (service
// account, authorized user, external account, impersonation).
func fromFile(ctx context.Context, path string) (*google.Credentials, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read credentials_file: %w", err)
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("credentials_file %s is not JSON: %w", path, err)
	}
	creds, err := google.CredentialsFromJSONWithType(ctx, data, google.CredentialsType(head.Type), Scope)
	if err != nil {
		return nil, fmt.Errorf("credentials_file %s: %w", path, err)
	}
	return creds, nil
}

// failure is a call that never left the machine (no credentials, no
// project). It is answered as the API would answer it, in the calling
// adapter's dialect, so it is reported as an authentication or request
// error that retrying will not fix.
type failure struct {
	status int
	msg    string
	err    error
}

func (f *failure) response(req *http.Request, anthropic bool) *http.Response {
	msg := "vertex: " + f.msg
	var body []byte
	if anthropic {
		typ := "invalid_request_error"
		if f.status == http.StatusUnauthorized {
			typ = "authentication_error"
		}
		body, _ = json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	} else {
		status := "INVALID_ARGUMENT"
		if f.status == http.StatusUnauthorized {
			status = "UNAUTHENTICATED"
		}
		body, _ = json.Marshal(map[string]any{"error": map[string]any{"code": f.status, "message": msg, "status": status}})
	}
	return provider.LocalResponse(req, f.status, body)
}
