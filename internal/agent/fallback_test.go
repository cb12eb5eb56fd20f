package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/provider/providers"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
	"github.com/tandem-agent/tandem/internal/tool"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

// fallbackWorld is two scripted servers behind real adapters: "primary"
// (Anthropic wire) and "backup" (OpenAI wire), each priced differently.
type fallbackWorld struct {
	primary, backup *scripted.Server
	rec             *turntest.Recorder
	events          *turntest.Events
	rt              *Runtime
	deps            turn.Deps
}

func newFallbackWorld(t *testing.T, primary, backup scripted.Script, disabled string) *fallbackWorld {
	t.Helper()
	w := &fallbackWorld{rec: &turntest.Recorder{}, events: &turntest.Events{}}
	urls := map[string]string{}
	w.primary, urls["primary"] = testfiles.Scripted(t, primary)
	w.backup, urls["backup"] = testfiles.Scripted(t, backup)
	adapters := map[string]provider.Provider{}
	for name, kind := range map[string]string{"primary": provider.KindAnthropic, "backup": provider.KindOpenAICompatible} {
		base := urls[name]
		if kind != provider.KindAnthropic {
			base += "/v1"
		}
		p, err := providers.New(provider.Config{Name: name, Kind: kind, BaseURL: base, APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		adapters[name] = p
	}
	price := map[string]float64{"primary": 1, "backup": 0.5}
	rt, err := New(Options{
		Models: ResolverFunc(func(spec string) (Model, error) {
			name, id, _ := strings.Cut(spec, "/")
			if name == disabled {
				return Model{}, errors.New("provider " + name + " is disabled in tandem's config")
			}
			p, ok := adapters[name]
			if !ok {
				return Model{}, errors.New("unknown provider " + name)
			}
			per := price[name]
			return Model{Provider: p, ID: id, Cost: func(u message.Usage) *float64 { c := float64(u.InputTokens) * per; return &c }}, nil
		}),
		Retry: RetryPolicy{MaxAttempts: 3},
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	w.rt = rt
	em := event.NewEmitter("ses_1", 0, w.events)
	w.deps = turn.Deps{Events: em, Recorder: w.rec, Checker: permission.AllowAll{}, Tools: tool.NewRegistry(&echoTool{}), Env: tool.NewEnv("ses_1", t.TempDir(), nil, "")}
	return w
}

func (w *fallbackWorld) of(typ event.Type) []event.Event {
	var out []event.Event
	for _, e := range w.events.All() {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

var overloadedAlways = scripted.Fault{Status: 529, Always: true}

// The primary answers 529 to every attempt: after the retries the turn
// moves to the fallback, which answers; the retry event names it and the
// stored message carries its model and its price.
func TestFallbackAfterPersistentOverload(t *testing.T) {
	w := newFallbackWorld(t,
		scripted.Script{Steps: []scripted.Step{scripted.TextStep("never").WithFault(overloadedAlways)}},
		scripted.Script{Steps: []scripted.Step{scripted.TextStep("from the backup").WithUsage(scripted.Usage{InputTokens: 40, OutputTokens: 3})}},
		"")
	res, err := w.rt.RunTurn(context.Background(), turn.Input{Prompt: "hi", Model: "primary/big",
		FallbackModels: []string{"backup/small"}}, w.deps)
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != event.SubtypeSuccess || res.Result != "from the backup" {
		t.Fatalf("result %+v", res)
	}
	if n := len(w.primary.MainRequests()); n != 3 {
		t.Errorf("primary asked %d times, want 3 (the retry policy)", n)
	}
	var fb []event.Event
	for _, e := range w.of(event.Retry) {
		if e.Model != "" {
			fb = append(fb, e)
		}
	}
	if len(fb) != 1 || fb[0].Model != "backup/small" || fb[0].HTTPStatus != 529 || !strings.Contains(fb[0].Message, "falling back to backup/small") {
		t.Fatalf("fallback events %+v", fb)
	}
	msgs := w.rec.Messages()
	last := msgs[len(msgs)-1]
	if last.Model != "backup/small" || last.CostUSD == nil || *last.CostUSD != 20 {
		t.Errorf("stored answer model %q cost %v, want backup/small and 20 (40 tokens at 0.5)", last.Model, last.CostUSD)
	}
	if res.CostUSD == nil || *res.CostUSD != 20 {
		t.Errorf("turn cost %v, want 20", res.CostUSD)
	}
}

// A disabled fallback is skipped (an error event says so) and the next one
// answers; a primary that cannot be used at all goes straight to them.
func TestFallbackSkipsDisabledAndUnusablePrimary(t *testing.T) {
	w := newFallbackWorld(t,
		scripted.Script{Steps: []scripted.Step{scripted.TextStep("primary answers")}},
		scripted.Script{Steps: []scripted.Step{scripted.TextStep("never")}},
		"backup")
	res, err := w.rt.RunTurn(context.Background(), turn.Input{Prompt: "hi", Model: "backup/small",
		FallbackModels: []string{"backup/other", "primary/big"}}, w.deps)
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != event.SubtypeSuccess || res.Result != "primary answers" {
		t.Fatalf("result %+v", res)
	}
	errs := w.of(event.Error)
	if len(errs) != 1 || !strings.Contains(errs[0].Error, "fallback model backup/other skipped") {
		t.Errorf("error events %+v", errs)
	}
	if st := w.of(event.Status); len(st) == 0 || st[0].Model != "primary/big" {
		t.Errorf("status %+v, want the model that answers", st)
	}
	if n := len(w.backup.MainRequests()); n != 0 {
		t.Errorf("disabled provider got %d requests", n)
	}
}

// 404 (model not found) falls back at once, without retries; a refused key
// does not fall back (another model would not fix the user's key).
func TestFallbackOnNotFoundNotOnAuth(t *testing.T) {
	w := newFallbackWorld(t,
		scripted.Script{Steps: []scripted.Step{scripted.TextStep("never").WithFault(scripted.Fault{Status: 404, Always: true})}},
		scripted.Script{Steps: []scripted.Step{scripted.TextStep("found")}},
		"")
	res, _ := w.rt.RunTurn(context.Background(), turn.Input{Prompt: "hi", Model: "primary/gone", FallbackModels: []string{"backup/small"}}, w.deps)
	if res.Subtype != event.SubtypeSuccess || res.Result != "found" || len(w.primary.MainRequests()) != 1 {
		t.Fatalf("404: result %+v after %d primary requests", res, len(w.primary.MainRequests()))
	}

	w = newFallbackWorld(t,
		scripted.Script{RequireKey: "other", Steps: []scripted.Step{scripted.TextStep("never")}},
		scripted.Script{Steps: []scripted.Step{scripted.TextStep("should not answer")}},
		"")
	res, _ = w.rt.RunTurn(context.Background(), turn.Input{Prompt: "hi", Model: "primary/big", FallbackModels: []string{"backup/small"}}, w.deps)
	if res.Subtype != event.SubtypeProviderError || len(w.backup.MainRequests()) != 0 {
		t.Fatalf("401: result %+v, backup asked %d times", res, len(w.backup.MainRequests()))
	}
}
