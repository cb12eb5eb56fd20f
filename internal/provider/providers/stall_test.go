package providers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// watchProvider returns an adapter of kind against a scripted server whose
// only step has fault f, with short stream timeouts.
func watchProvider(t *testing.T, kind string, f scripted.Fault) provider.Provider {
	t.Helper()
	f.Always = true
	_, url := testfiles.Scripted(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello there, this is a streamed answer").WithFault(f)}},
		scripted.WithSideWithoutTools(false))
	cfg := provider.Config{Name: "p", Kind: kind, BaseURL: url, APIKey: "k", FirstByteTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond}
	if kind != provider.KindAnthropic {
		cfg.BaseURL = url + "/v1"
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func watchStream(t *testing.T, p provider.Provider) (*provider.Response, time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	res, err := p.Stream(ctx, provider.Request{Model: "claude-sonnet-4-5", MaxTokens: 100,
		Messages: []message.Message{{Role: message.User, Content: []message.Block{message.TextBlock("hi")}}}}, nil)
	if ctx.Err() != nil {
		t.Fatalf("the stream hung until the test's own deadline")
	}
	return res, time.Since(start), err
}

func TestStreamTimeouts(t *testing.T) {
	cases := []struct {
		name  string
		fault scripted.Fault
		want  string
	}{
		{"no headers", scripted.Fault{Stall: scripted.StallHeaders}, "no response within 300ms"},
		{"headers then silence", scripted.Fault{Stall: scripted.StallBody}, "no response within 300ms"},
		// Pings keep nothing alive (the count in the message depends on
		// how many the reader took before the timer fired).
		{"only pings", scripted.Fault{Stall: scripted.StallPings, PingEveryMS: 30}, "no response within 300ms"},
		{"silence mid-stream", scripted.Fault{Stall: scripted.StallBody, StallAfterEvents: 3}, "the stream stalled: no data for 300ms"},
		{"pings mid-stream", scripted.Fault{Stall: scripted.StallPings, StallAfterEvents: 3, PingEveryMS: 30}, "the stream stalled: no data for 300ms"},
	}
	for _, kind := range []string{provider.KindAnthropic, provider.KindOpenAI, provider.KindOpenAICompatible, provider.KindOpenAIResponses} {
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				_, took, err := watchStream(t, watchProvider(t, kind, c.fault))
				var pe *provider.Error
				if !errors.As(err, &pe) || !pe.Retryable {
					t.Fatalf("got %v (%T), want a retryable *Error", err, err)
				}
				if !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %q lacks %q", err, c.want)
				}
				if took > 20*time.Second {
					t.Errorf("took %v", took)
				}
			})
		}
	}
}

// Pings between real events keep nothing alive but do no harm: a stream
// paced with pings slower than nothing but within the idle timeout works.
func TestStreamPacedWithinIdleTimeoutCompletes(t *testing.T) {
	for _, kind := range []string{provider.KindAnthropic, provider.KindOpenAI, provider.KindOpenAICompatible, provider.KindOpenAIResponses} {
		t.Run(kind, func(t *testing.T) {
			p := watchProvider(t, kind, scripted.Fault{DelayBetweenChunksMS: 100})
			res, _, err := watchStream(t, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := (message.Message{Content: res.Content}).PlainText(); got != "hello there, this is a streamed answer" {
				t.Errorf("text %q", got)
			}
		})
	}
}

func TestStreamNonSSEAnswer(t *testing.T) {
	html := "<html><head><title>Sign in</title></head><body>Please log in to the corporate proxy</body></html>"
	gateway := "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
	jsonErr, _ := json.Marshal(map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": "model not found"}})
	cases := []struct {
		name      string
		fault     scripted.Fault
		want      []string
		retryable bool
	}{
		{"html page", scripted.Fault{Status: 200, ContentType: "text/html; charset=utf-8", BodyText: html},
			[]string{"answered 200 with text/html; charset=utf-8 instead of an event stream", "Please log in", "base_url"}, false},
		{"json error", scripted.Fault{Status: 200, ContentType: "application/json", Body: jsonErr},
			[]string{"application/json instead of an event stream: model not found"}, false},
		{"gateway page", scripted.Fault{Status: 200, ContentType: "text/html", BodyText: gateway},
			[]string{"502 Bad Gateway"}, true},
	}
	for _, kind := range []string{provider.KindAnthropic, provider.KindOpenAI, provider.KindOpenAICompatible, provider.KindOpenAIResponses} {
		for _, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				_, _, err := watchStream(t, watchProvider(t, kind, c.fault))
				var pe *provider.Error
				if !errors.As(err, &pe) {
					t.Fatalf("got %v (%T)", err, err)
				}
				if pe.Retryable != c.retryable {
					t.Errorf("retryable %v, want %v: %v", pe.Retryable, c.retryable, err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if strings.Contains(err.Error(), "stream ended before") {
					t.Errorf("still the misleading message: %v", err)
				}
			})
		}
	}
}

// The Responses side of kind openai (plain handlers here) goes through the
// same watch: a stalled or non-SSE answer fails instead of hanging.
func TestResponsesStreamWatched(t *testing.T) {
	cases := []struct {
		name      string
		handler   http.HandlerFunc
		want      string
		retryable bool
	}{
		// The handlers read the body first: only then does the server
		// notice the client hanging up.
		{"no headers", func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body)
			<-r.Context().Done()
		}, "no response within 300ms", true},
		{"only pings", func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			for r.Context().Err() == nil {
				w.Write([]byte(": keep-alive\n\n"))
				w.(http.Flusher).Flush()
				time.Sleep(30 * time.Millisecond)
			}
		}, "no response within 300ms", true},
		{"html page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html><body>Please sign in</body></html>"))
		}, "text/html instead of an event stream", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			p, err := New(provider.Config{Name: "openai", Kind: provider.KindOpenAI, BaseURL: srv.URL + "/v1", APIKey: "k", ResponsesModels: []string{"gpt-5-codex"},
				FirstByteTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err = p.Stream(ctx, provider.Request{Model: "gpt-5-codex", Messages: []message.Message{{Role: message.User,
				Content: []message.Block{message.TextBlock("hi")}}}}, nil)
			if ctx.Err() != nil {
				t.Fatal("hung until the test's deadline")
			}
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Retryable != c.retryable || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v (retryable %v), want %q retryable %v", err, pe != nil && pe.Retryable, c.want, c.retryable)
			}
		})
	}
}
