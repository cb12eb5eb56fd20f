package agent

import (
	"context"
	"encoding/json"
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

// nativeCase is one protocol and model capability, and where the native
// structured-output field sits in its request body (nil: nowhere).
type nativeCase struct {
	name, kind string
	native     bool
	field      func(body map[string]any) any
}

func anthropicFormat(b map[string]any) any {
	oc, _ := b["output_config"].(map[string]any)
	return oc["format"]
}

func chatResponseFormat(b map[string]any) any { return b["response_format"] }

var nativeCases = []nativeCase{
	{"anthropic-capable", provider.KindAnthropic, true, anthropicFormat},
	{"anthropic-incapable", provider.KindAnthropic, false, nil},
	{"openai", provider.KindOpenAI, false, chatResponseFormat},
	{"compatible-capable", provider.KindOpenAICompatible, true, chatResponseFormat},
	{"compatible-incapable", provider.KindOpenAICompatible, false, nil},
}

// runNative runs one --json-schema turn against a scripted server of the
// case's protocol.
func runNative(t *testing.T, c nativeCase, steps ...scripted.Step) (event.Event, *scripted.Server) {
	t.Helper()
	srv, u := testfiles.Scripted(t, scripted.Script{Steps: steps})
	if c.kind != provider.KindAnthropic {
		u += "/v1"
	}
	p, err := providers.New(provider.Config{Name: "p", Kind: c.kind, BaseURL: u, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(Options{
		Models: ResolverFunc(func(string) (Model, error) {
			return Model{Provider: p, ID: "m", NativeOutput: c.native, Cost: func(message.Usage) *float64 { return nil }}, nil
		}),
		Retry: RetryPolicy{MaxAttempts: 1},
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	})
	if err != nil {
		t.Fatal(err)
	}
	deps := turn.Deps{Events: event.NewEmitter("ses_1", 0, &turntest.Events{}), Recorder: &turntest.Recorder{}, Checker: permission.AllowAll{},
		Tools: tool.NewRegistry(&echoTool{}), Env: tool.NewEnv("ses_1", t.TempDir(), nil, "")}
	res, err := rt.RunTurn(context.Background(), turn.Input{Prompt: "biggest city", Model: "p/m", JSONSchema: json.RawMessage(citySchema)}, deps)
	if err != nil {
		t.Fatal(err)
	}
	return res, srv
}

// checkNativeField: every request of the turn carries the schema in the
// native field when the model takes it, and none carries it otherwise
// (the schema still reaches the model through the prompt).
func checkNativeField(t *testing.T, c nativeCase, reqs []scripted.Request) {
	t.Helper()
	for i, r := range reqs {
		if !strings.Contains(string(r.RawBody), `\"population\"`) {
			t.Errorf("request %d: schema missing from the prompt", i)
		}
		_, chat := r.Body["response_format"]
		oc, _ := r.Body["output_config"].(map[string]any)
		_, anth := oc["format"]
		if c.field == nil {
			if chat || anth {
				t.Errorf("request %d: native field sent to a model without the capability: %s", i, r.RawBody)
			}
			continue
		}
		raw, _ := json.Marshal(c.field(r.Body))
		if !strings.Contains(string(raw), `"json_schema"`) || !strings.Contains(string(raw), `"population"`) {
			t.Errorf("request %d: native field %s in %s", i, raw, r.RawBody)
		}
	}
}

func TestStructuredOutputNativeConforms(t *testing.T) {
	for _, c := range nativeCases {
		t.Run(c.name, func(t *testing.T) {
			res, srv := runNative(t, c, scripted.TextStep(`{"city":"Lyon","population":522000}`))
			if res.Subtype != event.SubtypeSuccess || string(res.StructuredOutput) != `{"city":"Lyon","population":522000}` {
				t.Fatalf("result %+v structured %s", res, res.StructuredOutput)
			}
			reqs := srv.MainRequests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			checkNativeField(t, c, reqs)
		})
	}
}

// With the native field on, tools still run, and an answer that does not
// conform still gets tandem's one repair request.
func TestStructuredOutputNativeRepairedAfterTool(t *testing.T) {
	for _, c := range nativeCases {
		t.Run(c.name, func(t *testing.T) {
			res, srv := runNative(t, c,
				scripted.ToolStep(scripted.Call("Echo", map[string]any{"text": "hi"})),
				scripted.TextStep(`{"city":"Lyon"}`),
				scripted.TextStep(`{"city":"Lyon","population":522000}`))
			if res.Subtype != event.SubtypeSuccess || string(res.StructuredOutput) != `{"city":"Lyon","population":522000}` {
				t.Fatalf("result %+v structured %s", res, res.StructuredOutput)
			}
			reqs := srv.MainRequests()
			if len(reqs) != 3 || !strings.Contains(string(reqs[2].RawBody), "was not accepted") {
				t.Fatalf("%d requests; want tool step, answer, repair", len(reqs))
			}
			checkNativeField(t, c, reqs)
		})
	}
}
