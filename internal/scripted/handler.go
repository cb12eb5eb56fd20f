package scripted

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

const maxBodyBytes = 64 << 20

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	req := Request{
		Time: time.Now(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
		Header: r.Header.Clone(), API: APIOther, Step: -1,
	}
	cloudModel, cloudStream, bedrock, cloud := cloudRoute(path)
	switch {
	case r.Method == http.MethodPost && cloud:
		req.API = APIAnthropic
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages/count_tokens"):
		req.API = APICountTokens
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		req.API = APIAnthropic
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		req.API = APIOpenAI
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		req.API = APIResponses
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && (strings.HasSuffix(path, "/models") || strings.Contains(path, "/models/")):
		req.API = APIModels
	case (r.Method == http.MethodGet || r.Method == http.MethodHead) && path == "":
		req.Status = http.StatusOK
		s.record(req)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(w, "ok\n")
		}
		return
	default:
		req.Status = http.StatusNotFound
		s.record(req)
		writeError(w, apiFor(path), http.StatusNotFound, nil, fmt.Sprintf("%s %s: no such endpoint on the scripted model server", r.Method, r.URL.Path))
		return
	}
	proto := protoAnthropic
	if req.API == APIOpenAI || req.API == APIResponses {
		proto = protoOpenAI // Responses errors and ids are OpenAI's
	}
	if s.invalid != nil {
		req.Status = http.StatusInternalServerError
		s.record(req)
		writeError(w, proto, http.StatusInternalServerError, nil, s.invalid.Error())
		return
	}
	if r.Method == http.MethodPost {
		raw, body, err := readBody(r)
		req.RawBody, req.Body = raw, body
		if err != nil {
			req.Status = http.StatusBadRequest
			s.record(req)
			writeError(w, proto, http.StatusBadRequest, nil, err.Error())
			return
		}
		if cloud {
			// The clouds carry the model (and Bedrock the streaming) in
			// the path; put them where the rest of the server looks.
			body["model"] = cloudModel
			if bedrock {
				body["stream"] = cloudStream
			}
		}
	}
	if bedrock {
		w = newEventStreamWriter(w)
	}
	if !s.authorized(r) {
		req.Status = http.StatusUnauthorized
		s.record(req)
		writeError(w, proto, http.StatusUnauthorized, nil, "")
		return
	}
	switch req.API {
	case APICountTokens:
		req.Status = http.StatusOK
		s.record(req)
		writeJSON(w, http.StatusOK, map[string]int64{"input_tokens": estimateTokens(len(req.RawBody))})
	case APIModels:
		req.Status = http.StatusOK
		s.record(req)
		s.serveModels(w, r, path)
	default:
		s.serveCompletion(w, r, &req, proto)
	}
}

// apiFor guesses the error dialect of an unknown path.
func apiFor(path string) protocol {
	if strings.Contains(path, "/chat/") || strings.Contains(path, "/completions") || strings.Contains(path, "/responses") {
		return protoOpenAI
	}
	return protoAnthropic
}

func readBody(r *http.Request) ([]byte, map[string]any, error) {
	var src io.Reader = http.MaxBytesReader(nil, r.Body, maxBodyBytes)
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, nil, fmt.Errorf("request body: bad gzip: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	raw, err := io.ReadAll(src)
	if err != nil {
		return nil, nil, fmt.Errorf("request body: %w", err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		return raw, nil, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	return raw, body, nil
}

func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.requireKey == "" {
		return true
	}
	if r.Header.Get("x-api-key") == s.cfg.requireKey {
		return true
	}
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	return ok && strings.TrimSpace(token) == s.cfg.requireKey
}

// selection is the step chosen for a completion request.
type selection struct {
	step  *Step
	index int // scripted step index, -1 for side requests
	slot  int // attempts slot
	side  bool
}

// selectStep picks the step from the conversation itself so concurrent and
// resumed conversations need no server-side session state.
func (s *Server) selectStep(body map[string]any) selection {
	fallback := s.script.Fallback
	if fallback == nil {
		fallback = &Step{Text: defaultFallbackText}
	}
	last := len(s.script.Steps)
	if s.isSide(body) {
		return selection{step: fallback, index: -1, slot: last, side: true}
	}
	messages := conversation(body)
	n := assistantTurns(messages)
	if s.script.StepMarkers {
		n = markedTurns(messages)
	}
	if th, base := s.thread(messages); th != nil {
		if n < len(th.Steps) {
			return selection{step: &th.Steps[n], index: n, slot: base + n}
		}
		return selection{step: fallback, index: n, slot: last}
	}
	if n < len(s.script.Steps) {
		return selection{step: &s.script.Steps[n], index: n, slot: n}
	}
	return selection{step: fallback, index: n, slot: last}
}

// conversation is a request's messages: "messages" (Anthropic, Chat
// Completions), or the Responses API's "input" items read as messages.
func conversation(body map[string]any) any {
	if m, ok := body["messages"]; ok {
		return m
	}
	if in, ok := body["input"]; ok {
		return responsesConversation(in)
	}
	return nil
}

// thread returns the thread whose Match is in the first user message, and
// the first attempts slot of its steps.
func (s *Server) thread(messages any) (*Thread, int) {
	if len(s.script.Threads) == 0 {
		return nil, 0
	}
	first := firstUserText(messages)
	base := len(s.script.Steps) + 1
	for i := range s.script.Threads {
		th := &s.script.Threads[i]
		if strings.Contains(first, th.Match) {
			return th, base
		}
		base += len(th.Steps)
	}
	return nil, 0
}

// firstUserText is the text of the first user message (string content or
// its text blocks).
func firstUserText(messages any) string {
	list, _ := messages.([]any)
	for _, m := range list {
		obj, _ := m.(map[string]any)
		if role, _ := obj["role"].(string); role != "user" {
			continue
		}
		switch c := obj["content"].(type) {
		case string:
			return c
		case []any:
			var b strings.Builder
			for _, blk := range c {
				bo, _ := blk.(map[string]any)
				if t, ok := bo["text"].(string); ok {
					b.WriteString(t)
					b.WriteByte('\n')
				}
			}
			return b.String()
		}
		return ""
	}
	return ""
}

func threadSteps(s Script) int {
	n := 0
	for _, th := range s.Threads {
		n += len(th.Steps)
	}
	return n
}

func (s *Server) isSide(body map[string]any) bool {
	if s.cfg.sideWithoutTools {
		tools, _ := body["tools"].([]any)
		if len(tools) == 0 {
			return true
		}
	}
	if s.sideRE != nil {
		model, _ := body["model"].(string)
		if s.sideRE.MatchString(model) {
			return true
		}
	}
	return false
}

// assistantTurns counts runs of consecutive assistant messages: a client
// that splits one reply into several adjacent assistant messages still
// counts it once.
func assistantTurns(messages any) int {
	list, _ := messages.([]any)
	n, prevAssistant := 0, false
	for _, m := range list {
		obj, _ := m.(map[string]any)
		role, _ := obj["role"].(string)
		isAssistant := role == "assistant"
		if isAssistant && !prevAssistant {
			n++
		}
		prevAssistant = isAssistant
	}
	return n
}

// takeFault counts the attempt and returns the step's fault if this attempt
// is one it applies to.
func (s *Server) takeFault(sel selection) (*Fault, int) {
	attempt := int(s.attempts[sel.slot].Add(1))
	f := sel.step.Fault
	if f == nil || (!f.Always && attempt > f.times()) {
		return nil, attempt
	}
	return f, attempt
}

func estimateTokens(bytes int) int64 {
	n := int64(bytes / 4)
	if n < 1 {
		n = 1
	}
	return n
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
