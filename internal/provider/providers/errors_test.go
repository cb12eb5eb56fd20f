package providers

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providertest"
)

func TestErrorMapping(t *testing.T) {
	anthropicErr := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"}}`
	}
	tests := []struct {
		name       string
		kind       string
		handler    http.HandlerFunc
		status     int
		retryable  bool
		auth       bool
		retryAfter time.Duration
		msgHas     string
	}{
		{
			name: "429 retry-after seconds", kind: provider.KindAnthropic, status: 429, retryable: true, retryAfter: 7 * time.Second, msgHas: "Rate limited",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "7")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(429)
				_, _ = w.Write([]byte(anthropicErr("rate_limit_error", "Rate limited")))
			},
		},
		{
			name: "429 retry-after-ms wins", kind: provider.KindOpenAI, status: 429, retryable: true, retryAfter: 1500 * time.Millisecond, msgHas: "slow down",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("retry-after-ms", "1500")
				w.Header().Set("Retry-After", "2")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(429)
				_, _ = w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit"}}`))
			},
		},
		{
			name: "529 overloaded", kind: provider.KindAnthropic, status: 529, retryable: true, msgHas: "Overloaded",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(529)
				_, _ = w.Write([]byte(anthropicErr("overloaded_error", "Overloaded")))
			},
		},
		{
			name: "401 auth", kind: provider.KindAnthropic, status: 401, auth: true, msgHas: "invalid x-api-key",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(401)
				_, _ = w.Write([]byte(anthropicErr("authentication_error", "invalid x-api-key")))
			},
		},
		{
			name: "400 not retryable", kind: provider.KindOpenAI, status: 400, msgHas: "bad tool",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(400)
				_, _ = w.Write([]byte(`{"error":{"message":"bad tool","type":"invalid_request_error"}}`))
			},
		},
		{
			name: "overloaded mid-stream", kind: provider.KindAnthropic, retryable: true, msgHas: "Overloaded",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"x\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
					"event: error\ndata: " + anthropicErr("overloaded_error", "Overloaded") + "\n\n"))
			},
		},
		{
			name: "stream cut mid-way", kind: provider.KindAnthropic, retryable: true,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"x\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n" +
					"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
					"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n"))
				w.(http.Flusher).Flush()
				// drop the connection without finishing the stream
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					_ = conn.Close()
				}
			},
		},
		{
			name: "openai stream without finish", kind: provider.KindOpenAI, retryable: true,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(`data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}` + "\n\n"))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := providertest.Serve(t, tt.handler)
			if tt.kind != provider.KindAnthropic {
				url += "/v1"
			}
			p, err := New(provider.Config{Name: "p", Kind: tt.kind, BaseURL: url, APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Stream(context.Background(), providertest.SimpleRequest("m"), nil)
			pe, ok := provider.AsError(err)
			if !ok {
				t.Fatalf("want *provider.Error, got %T %v", err, err)
			}
			if pe.Status != tt.status || pe.Retryable != tt.retryable || pe.Auth != tt.auth || pe.RetryAfter != tt.retryAfter {
				t.Errorf("got status %d retryable %v auth %v retryAfter %v (%v)", pe.Status, pe.Retryable, pe.Auth, pe.RetryAfter, pe)
			}
			if !strings.Contains(pe.Message, tt.msgHas) || len(pe.Message) > provider.MaxMessage+5 {
				t.Errorf("message %q, want it to contain %q", pe.Message, tt.msgHas)
			}
			if pe.Provider != "p" {
				t.Errorf("provider %q", pe.Provider)
			}
		})
	}
}

func TestCancelIsNotRetryable(t *testing.T) {
	started := make(chan struct{})
	url := providertest.Serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		close(started)
		<-r.Context().Done()
	})
	p, _ := New(provider.Config{Name: "p", Kind: provider.KindAnthropic, BaseURL: url, APIKey: "k"})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err := p.Stream(ctx, providertest.SimpleRequest("m"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
	if _, ok := provider.AsError(err); ok {
		t.Errorf("cancellation must not be a provider *Error: %v", err)
	}
}
