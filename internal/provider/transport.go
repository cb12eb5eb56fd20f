package provider

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// authTransport sets the credential headers from Config on every request and
// removes any a client library added on its own (SDKs read keys from the
// environment), so a key for one service is never sent to another (say
// OPENAI_API_KEY to a local ollama). The Anthropic adapter already keeps its
// SDK away from the environment; the transport still guarantees x-api-key
// never goes next to a bearer token.
type authTransport struct {
	base http.RoundTripper
	cfg  Config
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	h := req.Header
	userAuth := HasHeader(t.cfg.Headers, "authorization")
	userKey := HasHeader(t.cfg.Headers, "x-api-key")
	switch t.cfg.Kind {
	case KindAnthropic:
		switch {
		case t.cfg.AuthToken != "":
			h.Set("Authorization", "Bearer "+t.cfg.AuthToken)
			if !userKey {
				h.Del("X-Api-Key")
			}
		case t.cfg.APIKey != "":
			h.Set("X-Api-Key", t.cfg.APIKey)
			if !userAuth {
				h.Del("Authorization")
			}
		default:
			if !userKey {
				h.Del("X-Api-Key")
			}
			if !userAuth {
				h.Del("Authorization")
			}
		}
	case KindGemini:
		// Google's API keys go in their own header, never as a bearer token.
		if t.cfg.APIKey != "" {
			h.Set("X-Goog-Api-Key", t.cfg.APIKey)
		}
		if !userAuth {
			h.Del("Authorization")
		}
	default:
		switch {
		case t.cfg.APIKey != "":
			h.Set("Authorization", "Bearer "+t.cfg.APIKey)
		case !userAuth:
			h.Del("Authorization")
		}
		// Organisation/project from OPENAI_ORG_ID etc. belong to OpenAI only.
		if t.cfg.Kind != KindOpenAI {
			if !HasHeader(t.cfg.Headers, "openai-organization") {
				h.Del("OpenAI-Organization")
			}
			if !HasHeader(t.cfg.Headers, "openai-project") {
				h.Del("OpenAI-Project")
			}
		}
	}
	return t.base.RoundTrip(req)
}

// HTTPClient returns the client the SDK should use: cfg.HTTPClient (or a
// default) with authTransport and watchTransport (stream timeouts, content
// check) in front of its transport.
func HTTPClient(cfg Config) *http.Client {
	var c http.Client
	if cfg.HTTPClient != nil {
		c = *cfg.HTTPClient
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	firstByte, idle := streamTimeouts(cfg)
	c.Transport = &authTransport{base: &watchTransport{base: base, firstByte: firstByte, idle: idle}, cfg: cfg}
	return &c
}

// ReadRequestBody reads and closes req's body (nil when it has none), for
// the cloud transports that rewrite a call before sending it on.
func ReadRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// LocalResponse is a JSON answer made on this machine, for a transport
// whose call cannot leave it (no credentials, no region): the adapter above
// reads it as it would the API's own error answer.
func LocalResponse(req *http.Request, status int, body []byte) *http.Response {
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}
