package scripted

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

func TestStatusFaults(t *testing.T) {
	tests := []struct {
		name     string
		url      string
		body     map[string]any
		fault    Fault
		wantType string // error.type in the body
	}{
		{"anthropic 429", "/v1/messages", anthropicBody(true), Fault{Status: 429, RetryAfter: "0.05"}, "rate_limit_error"},
		{"anthropic 529", "/v1/messages", anthropicBody(true), Fault{Status: 529}, "overloaded_error"},
		{"anthropic 500", "/v1/messages", anthropicBody(false), Fault{Status: 500}, "api_error"},
		{"anthropic 401", "/v1/messages", anthropicBody(true), Fault{Status: 401}, "authentication_error"},
		{"openai 429", "/v1/chat/completions", openAIBody(true), Fault{Status: 429, RetryAfter: "2"}, "requests"},
		{"openai 500", "/v1/chat/completions", openAIBody(false), Fault{Status: 500}, "server_error"},
		{"custom body", "/v1/messages", anthropicBody(true), Fault{Status: 400, Body: []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}`)}, "invalid_request_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := startServer(t, Script{Steps: []Step{TextStep("recovered").WithFault(tt.fault)}})
			resp := post(t, url+tt.url, tt.body)
			m := decodeJSON(t, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.fault.Status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tt.fault.Status)
			}
			errObj, _ := m["error"].(map[string]any)
			if errObj["type"] != tt.wantType || errObj["message"] == "" {
				t.Errorf("error body = %v", m)
			}
			if strings.Contains(tt.url, "messages") && m["type"] != "error" {
				t.Errorf("anthropic error body lacks type:error: %v", m)
			}
			if tt.fault.RetryAfter != "" {
				ms := map[string]string{"0.05": "50", "2": "2000"}[tt.fault.RetryAfter]
				if resp.Header.Get("retry-after") != tt.fault.RetryAfter || resp.Header.Get("retry-after-ms") != ms {
					t.Errorf("retry headers = %v", resp.Header)
				}
			}
			// The retry succeeds.
			resp = post(t, url+tt.url, tt.body)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("retry status = %d", resp.StatusCode)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !reqs[0].Fault || reqs[1].Fault || reqs[0].Attempt != 1 || reqs[1].Attempt != 2 || reqs[0].Status != tt.fault.Status {
				t.Errorf("recorded = %+v", reqs)
			}
		})
	}
}

func TestFaultTimesAndAlways(t *testing.T) {
	srv, url := startServer(t, Script{Steps: []Step{
		TextStep("a").WithFault(Fault{Status: 529, Times: 2}),
	}, Fallback: &Step{Text: "fb", Fault: &Fault{Status: 401, Always: true}}})
	var codes []int
	for range 3 {
		resp := post(t, url+"/v1/messages", anthropicBody(false))
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	for range 3 { // side requests hit the always-failing fallback
		body := anthropicBody(false)
		delete(body, "tools")
		resp := post(t, url+"/v1/messages", body)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	want := []int{529, 529, 200, 401, 401, 401}
	for i := range want {
		if codes[i] != want[i] {
			t.Fatalf("codes = %v, want %v", codes, want)
		}
	}
	srv.Reset()
	resp := post(t, url+"/v1/messages", anthropicBody(false))
	resp.Body.Close()
	if resp.StatusCode != 529 || len(srv.Requests()) != 1 {
		t.Errorf("after Reset: status %d, %d requests", resp.StatusCode, len(srv.Requests()))
	}
}

func TestSDKRetriesThroughFault(t *testing.T) {
	srv, url := startServer(t, Script{Steps: []Step{TextStep("after retry").WithFault(Fault{Status: 529, RetryAfter: "0.01"})}})
	c := anthropicClient(url, option.WithMaxRetries(2))
	msg, err := streamAnthropic(t, c, anthropicParams())
	if err != nil {
		t.Fatal(err)
	}
	if msg.Content[0].Text != "after retry" || len(srv.MainRequests()) != 2 {
		t.Errorf("text %q after %d requests", msg.Content[0].Text, len(srv.MainRequests()))
	}
}

func TestMidStreamErrorAnthropic(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{TextStep(strings.Repeat("word ", 40)).WithFault(Fault{MidStreamError: true, Times: 2})}})
	c := anthropicClient(url)
	_, err := streamAnthropic(t, c, anthropicParams())
	if err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("err = %v, want overloaded_error", err)
	}
	// Raw: the stream starts normally and ends with an error event.
	resp := post(t, url+"/v1/messages", anthropicBody(true))
	events, _ := readSSE(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(events) < 4 || events[0].name != "message_start" || events[len(events)-1].name != "error" {
		t.Fatalf("events = %+v", events)
	}
	// The third attempt is clean.
	msg, err := streamAnthropic(t, c, anthropicParams())
	if err != nil || !strings.HasPrefix(msg.Content[0].Text, "word word") {
		t.Errorf("after fault: %v %+v", err, msg)
	}
}

func TestMidStreamErrorOpenAI(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{TextStep(strings.Repeat("word ", 40)).WithFault(Fault{MidStreamError: true, Times: 2})}})
	got, err := streamOpenAI(t, url, openAIBody(true))
	if err == nil {
		t.Fatalf("no error; got %q", got.content)
	}
	resp := post(t, url+"/v1/chat/completions", openAIBody(false))
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Errorf("non-streaming mid-stream fault read the whole body")
	}
}

func TestDropAfterBytes(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{
		TextStep(strings.Repeat("x", 500)).WithFault(DropFault(100)),
		TextStep("second"),
	}})
	resp := post(t, url+"/v1/messages", anthropicBody(true))
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || len(data) != 100 {
		t.Fatalf("read %d bytes, err %v; want 100 bytes then an error", len(data), err)
	}

	// Drop before any response on step 1.
	_, url = startServer(t, Script{Steps: []Step{TextStep("x").WithFault(DropFault(0))}})
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(`{"model":"m","messages":[],"tools":[{"name":"a"}]}`))
	// A fresh connection: Go transparently retries a request whose reused
	// keep-alive connection closes before any response.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := fresh.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("got status %d, want a connection error", resp.StatusCode)
	}
}

func TestDelays(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{
		TextStep("a b").WithFault(Fault{FirstByteDelayMS: 150}),
	}, ChunkSize: 4})
	start := time.Now()
	resp := post(t, url+"/v1/messages", anthropicBody(true))
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("headers after %v, want >= 150ms", d)
	}
	resp.Body.Close()

	text := strings.Repeat("abcd ", 10)
	_, url = startServer(t, Script{Steps: []Step{TextStep(text).WithFault(Fault{DelayBetweenChunksMS: 10})}, ChunkSize: 4})
	start = time.Now()
	resp = post(t, url+"/v1/messages", anthropicBody(true))
	got := anthropicStreamText(t, resp)
	// ~10 text deltas plus 6 framing events, 10ms apart.
	if d := time.Since(start); d < 120*time.Millisecond || got != text {
		t.Errorf("stream took %v (text %q), want >= 120ms", d, got)
	}
}

func TestDelayStopsWhenClientGoesAway(t *testing.T) {
	_, url := startServer(t, Script{Steps: []Step{TextStep("a").WithFault(Fault{FirstByteDelayMS: 120000})}})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/messages", strings.NewReader(`{"tools":[1]}`))
	start := time.Now()
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("want timeout")
	}
	if time.Since(start) > 30*time.Second {
		t.Error("client timeout did not return promptly")
	}
}
