package scripted

import (
	"net/http"
	"time"
)

// API names the endpoint family a request hit.
type API string

const (
	APIAnthropic   API = "anthropic"    // POST .../messages
	APICountTokens API = "count_tokens" // POST .../messages/count_tokens
	APIOpenAI      API = "openai"       // POST .../chat/completions
	APIResponses   API = "responses"    // POST .../responses (OpenAI Responses)
	APIModels      API = "models"       // GET .../models[/id]
	APIOther       API = "other"        // root probes and unknown paths
)

// Request is one request the server received, for tests to assert on.
type Request struct {
	Time    time.Time
	Method  string
	Path    string
	Query   string
	Header  http.Header
	RawBody []byte
	// Body is the parsed JSON body (nil when there was none or it was not
	// a JSON object).
	Body map[string]any
	API  API
	// Side is true for requests answered by the fallback without consuming
	// a step (no tools / side model).
	Side bool
	// Step is the index of the scripted step selected by conversation
	// position; -1 for side requests and non-completion endpoints. A value
	// >= len(steps) means the fallback answered.
	Step int
	// Attempt counts requests for the same step, server-wide, from 1.
	Attempt int
	// Fault is true when a fault was applied to this request.
	Fault bool
	// Overflow is true when the request was refused for passing the
	// script's ContextLimit.
	Overflow bool
	// Status is the HTTP status answered (0 when the connection was dropped
	// before any response).
	Status int
}

// Model is the request's "model" field.
func (r Request) Model() string {
	m, _ := r.Body["model"].(string)
	return m
}

// Messages is the request's "messages" array.
func (r Request) Messages() []any {
	m, _ := r.Body["messages"].([]any)
	return m
}

// Stream reports whether the request asked for a streamed reply.
func (r Request) Stream() bool {
	b, _ := r.Body["stream"].(bool)
	return b
}

// Requests returns a copy of every request received so far, in arrival
// order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MainRequests returns the completion requests that were not side
// requests, in arrival order.
func (s *Server) MainRequests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if (r.API == APIAnthropic || r.API == APIOpenAI || r.API == APIResponses) && !r.Side {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) record(r Request) {
	if s.cfg.logf != nil {
		s.cfg.logf("%s %s api=%s model=%s side=%v step=%d attempt=%d fault=%v status=%d",
			r.Method, r.Path, r.API, r.Model(), r.Side, r.Step, r.Attempt, r.Fault, r.Status)
	}
	if !s.cfg.record {
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, r)
	s.mu.Unlock()
}
