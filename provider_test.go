package tandem_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/tandem-agent/tandem"
)

// twoStepProvider asks for one tool call, then answers with the tool's
// result; it keeps every request it was given.
type twoStepProvider struct {
	mu   sync.Mutex
	reqs []tandem.ModelRequest
}

func (p *twoStepProvider) Stream(ctx context.Context, req tandem.ModelRequest, emit func(tandem.ModelDelta)) (*tandem.ModelResponse, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	last := req.Messages[len(req.Messages)-1]
	for _, b := range last.Content {
		if b.Type == tandem.BlockToolResult {
			text := "The tool said: " + b.Content[0].Text
			emit(tandem.ModelDelta{Kind: tandem.DeltaText, Text: text})
			return &tandem.ModelResponse{Content: []tandem.Block{{Type: tandem.BlockText, Text: text}},
				Usage: tandem.Usage{InputTokens: 10, OutputTokens: 5}, StopReason: "end_turn"}, nil
		}
	}
	emit(tandem.ModelDelta{Kind: tandem.DeltaToolStart, ToolID: "c1", ToolName: "clock"})
	return &tandem.ModelResponse{Content: []tandem.Block{{Type: tandem.BlockToolUse, ID: "c1", Name: "clock", Input: json.RawMessage(`{}`)}},
		Usage: tandem.Usage{InputTokens: 8, OutputTokens: 3}, StopReason: "tool_use"}, nil
}

func TestCustomProviderGivenInCode(t *testing.T) {
	st := newStack(t)
	prov := &twoStepProvider{}
	clock := tandem.Tool{Name: "clock", Description: "The time.", ReadOnly: true,
		Run: func(ctx context.Context, call tandem.ToolCall) (tandem.ToolResult, error) {
			return tandem.ToolResult{Content: "noon"}, nil
		}}
	eng := st.open(tandem.Options{Providers: map[string]tandem.Provider{"mine": prov}, Model: "mine/small-1", Tools: []tandem.Tool{clock}})
	var rec recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(testCtx(t), "what time is it?", nil)
	if err != nil || res.IsError || res.Text != "The tool said: noon" {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if res.Usage.InputTokens != 18 || res.Usage.OutputTokens != 8 || res.NumTurns != 2 {
		t.Errorf("usage and steps: %+v", res)
	}
	prov.mu.Lock()
	reqs := prov.reqs
	prov.mu.Unlock()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if reqs[0].Model != "small-1" || len(reqs[0].System) == 0 {
		t.Errorf("first request: model %q, %d system blocks", reqs[0].Model, len(reqs[0].System))
	}
	var offered []string
	for _, ts := range reqs[0].Tools {
		offered = append(offered, ts.Name)
	}
	if !strings.Contains(","+strings.Join(offered, ",")+",", ",clock,") || !strings.Contains(strings.Join(offered, ","), "Read") {
		t.Errorf("tools offered: %v", offered)
	}
	first := reqs[0].Messages[0]
	if first.Role != tandem.RoleUser || !strings.Contains(first.Content[len(first.Content)-1].Text, "what time is it?") {
		t.Errorf("first message: %+v", first)
	}
	if st := rec.ofType(tandem.EventStatus); len(st) == 0 || st[len(st)-1].Model != "mine/small-1" {
		t.Errorf("status events: %+v", st)
	}
}

type failingProvider struct{ err error }

func (p failingProvider) Stream(context.Context, tandem.ModelRequest, func(tandem.ModelDelta)) (*tandem.ModelResponse, error) {
	return nil, p.err
}

func TestCustomProviderErrorEndsTheTurn(t *testing.T) {
	st := newStack(t)
	eng := st.open(tandem.Options{Model: "bad/m",
		Providers: map[string]tandem.Provider{"bad": failingProvider{&tandem.ProviderError{Status: 401, Message: "key refused", Auth: true}}}})
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(testCtx(t), "hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Subtype != tandem.SubtypeProviderError || !strings.Contains(res.Error, "key refused") {
		t.Errorf("result: %+v", res)
	}
	if _, err := tandem.Open(context.Background(), tandem.Options{Home: st.Home, Providers: map[string]tandem.Provider{"x": nil}}); err == nil {
		t.Error("a nil provider was accepted")
	}
}

func TestFallbackModelAnswersWhenTheModelIsMissing(t *testing.T) {
	st := newStack(t)
	eng := st.open(tandem.Options{Model: "gone/m", Providers: map[string]tandem.Provider{
		"gone": failingProvider{&tandem.ProviderError{Status: 404, Message: "no such model"}},
		"good": &twoStepProvider{},
	}})
	var rec recorder
	s, err := eng.NewSession(testCtx(t), tandem.SessionOptions{Dir: st.Work, OnEvent: rec.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Run(testCtx(t), "hi", &tandem.RunOptions{FallbackModels: []string{"good/m"}})
	if err != nil {
		t.Fatal(err)
	}
	// twoStepProvider calls clock, which this session lacks: the error
	// result comes back and it answers with it.
	if res.IsError || !strings.HasPrefix(res.Text, "The tool said:") {
		t.Fatalf("result: %+v", res)
	}
	moved := false
	for _, e := range rec.ofType(tandem.EventRetry) {
		if e.Model == "good/m" {
			moved = true
		}
	}
	if !moved {
		t.Errorf("no retry event names the fallback model: %+v", rec.ofType(tandem.EventRetry))
	}
	if _, err := s.Run(testCtx(t), "hi", &tandem.RunOptions{FallbackModels: []string{"nosuchprovider/m"}}); err == nil {
		t.Error("a bad fallback model was accepted")
	}
}
