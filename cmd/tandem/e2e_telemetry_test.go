package main

import (
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/telemetry"
	"github.com/tandem-agent/tandem/internal/telemetry/otlptest"
)

// telemetryScript is a turn with one sub-agent that reads a file.
func telemetryScript() scripted.Script {
	return scripted.Script{
		Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("a1", "Agent", map[string]any{"description": "read the notes", "prompt": "TASK-ONE: read notes.txt", "subagent_type": "general-purpose"})).
				WithUsage(scripted.Usage{InputTokens: 100, OutputTokens: 10}),
			scripted.TextStep("Done.").WithUsage(scripted.Usage{InputTokens: 200, OutputTokens: 20}),
		},
		Threads: []scripted.Thread{{Match: "TASK-ONE", Steps: []scripted.Step{
			scripted.ToolStep(scripted.CallID("r1", "Read", map[string]any{"file_path": "notes.txt"})).WithUsage(scripted.Usage{InputTokens: 1000, OutputTokens: 100}),
			scripted.TextStep("notes say hello").WithUsage(scripted.Usage{InputTokens: 2000, OutputTokens: 200}),
		}}},
	}
}

func TestTelemetryExportHTTP(t *testing.T) { testTelemetryExport(t, "http/protobuf") }
func TestTelemetryExportGRPC(t *testing.T) { testTelemetryExport(t, "grpc") }

// `tandem run` with the standard OTEL_* variables pointing at a loopback
// OTLP receiver exports Claude Code's metrics and events and a trace tree
// with the sub-agent under its tool call, flushed before it exits.
func testTelemetryExport(t *testing.T, protocol string) {
	rcv := otlptest.Start(t)
	url := rcv.HTTPURL
	if protocol == "grpc" {
		url = rcv.GRPCURL
	}
	x := newE2E(t, telemetryScript())
	x.WriteFile("notes.txt", "hello\n")
	x.Env = append(x.Env, "OTEL_EXPORTER_OTLP_ENDPOINT="+url, "OTEL_EXPORTER_OTLP_PROTOCOL="+protocol,
		"OTEL_METRIC_EXPORT_INTERVAL=3600000", "OTEL_RESOURCE_ATTRIBUTES=team=infra")
	r := x.RunStream("use an agent")
	mustSucceed(t, r)
	id := r.Result().SessionID
	otlptest.Wait(t, "the exports flushed at exit", func() bool {
		return len(rcv.Spans()) >= 8 && len(rcv.Metrics()) > 0 && len(rcv.Logs()) > 0
	})
	res := rcv.ResourceAttrs()
	if res["service.name"] != "tandem" || res["team"] != "infra" || res["service.version"] == "" {
		t.Errorf("resource: %v", res)
	}

	// The trace: interaction > Agent tool > sub-agent > Read tool, and
	// each model call under its own turn.
	spans := rcv.Spans()
	names := map[string]string{}
	for _, sp := range spans {
		n := sp.Name
		if n == telemetry.SpanTool {
			n = otlptest.Attrs(sp.Attributes)["tool_name"]
		}
		names[string(sp.SpanId)] = n
	}
	edges := map[string]int{}
	for _, sp := range spans {
		edges[names[string(sp.SpanId)]+" < "+names[string(sp.ParentSpanId)]]++
	}
	for edge, n := range map[string]int{
		telemetry.SpanInteraction + " < ":                            1,
		"Agent < " + telemetry.SpanInteraction:                       1,
		telemetry.SpanSubagent + " < Agent":                          1,
		"Read < " + telemetry.SpanSubagent:                           1,
		telemetry.SpanLLMRequest + " < " + telemetry.SpanInteraction: 2,
		telemetry.SpanLLMRequest + " < " + telemetry.SpanSubagent:    2,
	} {
		if edges[edge] != n {
			t.Errorf("%d spans %q, want %d (all: %v)", edges[edge], edge, n, edges)
		}
	}

	var input, sessions float64
	for _, p := range rcv.Points(telemetry.MetricTokens) {
		if p.Attrs["session.id"] != id || p.Attrs["model"] == "" {
			t.Errorf("token.usage point: %v", p.Attrs)
		}
		if p.Attrs["type"] == "input" {
			input += p.Value
		}
	}
	for _, p := range rcv.Points(telemetry.MetricSessionCount) {
		sessions += p.Value
	}
	if input != 3300 || sessions != 1 {
		t.Errorf("input tokens %v (want 3300, the sub-agent's included), sessions %v (want 1)", input, sessions)
	}
	events := map[string]int{}
	for _, l := range rcv.Logs() {
		a := otlptest.Attrs(l.Attributes)
		events[a["event.name"]]++
		if a["session.id"] != id {
			t.Errorf("event without the session: %v", a)
		}
		if strings.Contains(a["prompt"], "use an agent") {
			t.Errorf("the prompt was exported though OTEL_LOG_USER_PROMPTS is unset: %v", a)
		}
	}
	for name, n := range map[string]int{telemetry.EventUserPrompt: 1, telemetry.EventAPIRequest: 4, telemetry.EventToolResult: 2, telemetry.EventToolDecision: 2} {
		if events[name] != n {
			t.Errorf("%d %s events, want %d (all: %v)", events[name], name, n, events)
		}
	}
}

// Unconfigured, switched off, or asked for by a project file: nothing
// reaches the collector.
func TestTelemetryOff(t *testing.T) {
	rcv := otlptest.Start(t)
	cases := []struct {
		name, config, project string
		env                   []string
		fails                 bool
	}{
		{name: "unconfigured", env: []string{"OTEL_SERVICE_NAME=x", "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}},
		{name: "OTEL_SDK_DISABLED", env: []string{"OTEL_SDK_DISABLED=true", "OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.HTTPURL}},
		{name: "user config off", config: `{"telemetry":{"enabled":false}}`, env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.HTTPURL}},
		{name: "project file", project: `{"telemetry":{"endpoint":"` + rcv.HTTPURL + `"}}`, fails: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newE2E(t, telemetryScript())
			x.WriteFile("notes.txt", "hello\n")
			if c.config != "" {
				x.WriteConfig(c.config)
			}
			if c.project != "" {
				x.WriteFile(".tandem/config.json", c.project)
			}
			x.Env = append(x.Env, c.env...)
			r := x.RunStream("use an agent")
			if c.fails {
				if r.Code == 0 || !strings.Contains(r.Stderr, `"telemetry"`) || !strings.Contains(r.Stderr, "user config") {
					t.Fatalf("a project's telemetry section was not refused: exit %d\n%s", r.Code, r.Stderr)
				}
			} else {
				mustSucceed(t, r)
			}
			if n := rcv.Requests(); n != 0 {
				t.Fatalf("%d exports reached the collector", n)
			}
		})
	}
}
