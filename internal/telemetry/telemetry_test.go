//go:build !notelemetry

package telemetry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/telemetry"
	"github.com/tandem-agent/tandem/internal/telemetry/otlptest"
	"github.com/tandem-agent/tandem/internal/turn"
	"github.com/tandem-agent/tandem/internal/turn/turntest"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestDecide(t *testing.T) {
	on, off := true, false
	cases := []struct {
		name string
		env  map[string]string
		cfg  *config.Telemetry
		want map[telemetry.Signal]bool // nil: nothing
		err  bool
	}{
		{name: "unconfigured: off", env: map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}},
		{name: "endpoint turns every signal on", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: map[telemetry.Signal]bool{telemetry.Metrics: true, telemetry.Logs: true, telemetry.Traces: true}},
		{name: "one exporter named", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp"}, want: map[telemetry.Signal]bool{telemetry.Metrics: true}},
		{name: "none beats the endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_TRACES_EXPORTER": "none", "OTEL_LOGS_EXPORTER": "none"},
			want: map[telemetry.Signal]bool{telemetry.Metrics: true}},
		{name: "Claude Code's switch", env: map[string]string{"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_LOGS_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "none"},
			want: map[telemetry.Signal]bool{telemetry.Logs: true, telemetry.Traces: true}},
		{name: "SDK disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}},
		{name: "config off beats the endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, cfg: &config.Telemetry{Enabled: &off}},
		{name: "env switch beats config", env: map[string]string{"TANDEM_ENABLE_TELEMETRY": "0"}, cfg: &config.Telemetry{Enabled: &on}},
		{name: "config on", cfg: &config.Telemetry{Enabled: &on, TracesExporter: "none"},
			want: map[telemetry.Signal]bool{telemetry.Metrics: true, telemetry.Logs: true}},
		{name: "config endpoint", cfg: &config.Telemetry{Endpoint: "http://c:4318"},
			want: map[telemetry.Signal]bool{telemetry.Metrics: true, telemetry.Logs: true, telemetry.Traces: true}},
		{name: "unknown exporter", env: map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, err: true},
		{name: "http/json", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: true},
		{name: "bad interval", env: map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_METRIC_EXPORT_INTERVAL": "10s"}, err: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := telemetry.Decide(env(c.env), c.cfg, "config.json")
			if (err != nil) != c.err {
				t.Fatalf("err = %v", err)
			}
			for _, sig := range telemetry.Signals() {
				if p.On[sig] != c.want[sig] {
					t.Errorf("%s on = %v, want %v", sig, p.On[sig], c.want[sig])
				}
			}
		})
	}
}

// With nothing configured, Start builds nothing, and a nil Telemetry
// wraps nothing.
func TestOffIsNil(t *testing.T) {
	tel, err := telemetry.Start(context.Background(), telemetry.Plan{}, telemetry.Info{})
	if err != nil || tel != nil {
		t.Fatalf("Start(zero plan) = %v, %v; want nil, nil", tel, err)
	}
	s := tel.Session("s1", nil)
	if s != nil {
		t.Fatal("a nil Telemetry made a session")
	}
	var rec turn.Recorder = &turntest.Recorder{}
	if got := s.Recorder("s1", rec); got != rec {
		t.Error("a nil session wrapped the recorder")
	}
	if tel.Middleware(nil) != nil {
		t.Error("a nil Telemetry wrapped the handler")
	}
}

// The exporters read the OTLP exporter variables from the environment
// Decide was given: per-signal endpoints and protocols, compression,
// timeouts; a value they cannot use fails Start, naming the variable.
func TestStartReadsExporterVariables(t *testing.T) {
	rcv := otlptest.Start(t)
	vars := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":         "http://127.0.0.1:1", // nobody: only the signals' own endpoints may be used
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":  rcv.HTTPURL + "/v1/traces",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": rcv.GRPCURL,
		"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "grpc",
		"OTEL_EXPORTER_OTLP_COMPRESSION":      "gzip",
		"OTEL_EXPORTER_OTLP_TIMEOUT":          "20000",
		"OTEL_LOGS_EXPORTER":                  "none",
		"OTEL_METRIC_EXPORT_INTERVAL":         "3600000",
	}
	plan, err := telemetry.Decide(env(vars), nil, "config.json")
	if err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.Start(context.Background(), plan, telemetry.Info{Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	s := tel.Session("S1", nil)
	ctx := s.BeginTurn(context.Background(), "hi", "m")
	must(t, s.Recorder("S1", &turntest.Recorder{}).Append(ctx, message.Message{Role: message.Assistant, Model: "m", Usage: &message.Usage{InputTokens: 1}}))
	s.EndTurn(event.Event{Type: event.Result, Subtype: event.SubtypeSuccess}, nil)
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tel.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	if len(rcv.Spans()) == 0 || len(rcv.Points(telemetry.MetricTokens)) == 0 {
		t.Errorf("received %d spans, %d token points", len(rcv.Spans()), len(rcv.Points(telemetry.MetricTokens)))
	}

	vars["OTEL_EXPORTER_OTLP_TIMEOUT"] = "10s"
	plan, err = telemetry.Decide(env(vars), nil, "config.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := telemetry.Start(context.Background(), plan, telemetry.Info{}); err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_TIMEOUT") {
		t.Errorf("Start with a bad timeout: %v", err)
	}
}

func TestExportHTTP(t *testing.T) { testExport(t, telemetry.ProtocolHTTP) }
func TestExportGRPC(t *testing.T) { testExport(t, telemetry.ProtocolGRPC) }

// A scripted turn through a Session: one sub-agent, a permission wait on
// an edit, a commit; the receiver gets the trace tree, Claude Code's
// metrics and events.
func testExport(t *testing.T, protocol string) {
	rcv := otlptest.Start(t)
	url := rcv.HTTPURL
	if protocol == telemetry.ProtocolGRPC {
		url = rcv.GRPCURL
	}
	all := map[telemetry.Signal]bool{telemetry.Metrics: true, telemetry.Logs: true, telemetry.Traces: true}
	plan := telemetry.Plan{On: all, Protocol: map[telemetry.Signal]string{telemetry.Metrics: protocol, telemetry.Logs: protocol, telemetry.Traces: protocol},
		Endpoint: url, MetricInterval: time.Hour, LogsInterval: time.Hour}
	tel, err := telemetry.Start(context.Background(), plan, telemetry.Info{Version: "1.2.3", UserID: "install-1", TerminalType: "xterm"})
	if err != nil {
		t.Fatal(err)
	}
	red := secrets.New(nil, nil).Redactor([]string{"ANTHROPIC_API_KEY=sk-ant-secret-value-123456"})
	s := tel.Session("S1", red)
	now := time.Now()
	at := func(ms int) time.Time { return now.Add(time.Duration(ms) * time.Millisecond) }
	cost := 0.25
	ctx := s.BeginTurn(context.Background(), "fix it with sk-ant-secret-value-123456", "anthropic/claude-sonnet-4-5")
	rec := s.Recorder("S1", &turntest.Recorder{})
	must(t, rec.Append(ctx, message.Message{Role: message.Assistant, Model: "claude-sonnet-4-5", Usage: &message.Usage{InputTokens: 100, OutputTokens: 10, CacheReadTokens: 5}, CostUSD: &cost}))
	s.Emit(event.Event{Type: event.ToolUse, ToolUseID: "a1", ToolName: "Agent", Time: at(1), Input: json.RawMessage(`{"prompt":"x"}`)})
	s.Child("C1", "a1", "reader: read")
	crec := s.Recorder("C1", &turntest.Recorder{})
	s.Emit(event.Event{Type: event.ToolUse, ParentToolUseID: "a1", ToolUseID: "r1", ToolName: "Read", Time: at(2)})
	s.Emit(event.Event{Type: event.ToolResult, ParentToolUseID: "a1", ToolUseID: "r1", ToolName: "Read", Time: at(3), Output: "hello"})
	must(t, crec.Append(ctx, message.Message{Role: message.Assistant, Model: "claude-haiku-4-5", Usage: &message.Usage{InputTokens: 1000, OutputTokens: 100}}))
	s.Emit(event.Event{Type: event.ToolResult, ToolUseID: "a1", ToolName: "Agent", Time: at(5), Output: "done"})
	s.Emit(event.Event{Type: event.ToolUse, ToolUseID: "e1", ToolName: "Edit", Time: at(6), Input: json.RawMessage(`{"file_path":"main.go"}`)})
	s.Emit(event.Event{Type: event.PermissionRequest, ToolUseID: "e1", ToolName: "Edit", RequestID: "q1", Time: at(7)})
	s.Emit(event.Event{Type: event.PermissionReply, RequestID: "q1", Decision: "allow_once", Time: at(9)})
	s.Emit(event.Event{Type: event.ToolResult, ToolUseID: "e1", ToolName: "Edit", Time: at(10), Diff: "--- a\n+++ b\n@@\n-old\n+new\n+more\n"})
	s.Emit(event.Event{Type: event.ToolUse, ToolUseID: "b1", ToolName: "Bash", Time: at(11), Input: json.RawMessage(`{"command":"git add . && git commit -m x"}`)})
	s.Emit(event.Event{Type: event.ToolResult, ToolUseID: "b1", ToolName: "Bash", Time: at(12)})
	s.EndTurn(event.Event{Type: event.Result, Subtype: event.SubtypeSuccess}, nil)
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tel.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	otlptest.Wait(t, "spans, metrics and logs", func() bool {
		return len(rcv.Spans()) > 0 && len(rcv.Metrics()) > 0 && len(rcv.Logs()) > 0
	})
	checkTree(t, rcv, map[string]string{
		telemetry.SpanInteraction:   "",
		"Agent":                     telemetry.SpanInteraction,
		telemetry.SpanSubagent:      "Agent",
		"Read":                      telemetry.SpanSubagent,
		"Edit":                      telemetry.SpanInteraction,
		telemetry.SpanBlockedOnUser: "Edit",
	})
	if got := rcv.ResourceAttrs()["service.name"]; got != "tandem" {
		t.Errorf("service.name = %q", got)
	}
	for _, sp := range rcv.Spans() {
		for _, v := range otlptest.Attrs(sp.Attributes) {
			if strings.Contains(v, "sk-ant-secret") {
				t.Errorf("span %s carries the secret: %q", sp.Name, v)
			}
		}
		if sp.Name == telemetry.SpanInteraction && otlptest.Attrs(sp.Attributes)["user_prompt"] != "<REDACTED>" {
			t.Errorf("the prompt was exported without log_user_prompts: %v", otlptest.Attrs(sp.Attributes))
		}
	}
	want := map[string]float64{
		telemetry.MetricSessionCount + "|":                         1,
		telemetry.MetricTokens + "|input|claude-sonnet-4-5":        100,
		telemetry.MetricTokens + "|output|claude-sonnet-4-5":       10,
		telemetry.MetricTokens + "|cacheRead|claude-sonnet-4-5":    5,
		telemetry.MetricTokens + "|input|claude-haiku-4-5":         1000,
		telemetry.MetricCost + "||claude-sonnet-4-5":               0.25,
		telemetry.MetricLinesOfCode + "|added|claude-sonnet-4-5":   2,
		telemetry.MetricLinesOfCode + "|removed|claude-sonnet-4-5": 1,
		telemetry.MetricCommits + "|":                              1,
	}
	got := map[string]float64{}
	for _, name := range []string{telemetry.MetricSessionCount, telemetry.MetricTokens, telemetry.MetricCost, telemetry.MetricLinesOfCode, telemetry.MetricCommits} {
		for _, p := range rcv.Points(name) {
			if p.Attrs["session.id"] != "S1" || p.Attrs["app.version"] != "1.2.3" || p.Attrs["user.id"] != "install-1" || p.Attrs["terminal.type"] != "xterm" {
				t.Errorf("%s lacks the common attributes: %v", name, p.Attrs)
			}
			key := name + "|" + p.Attrs["type"]
			if p.Attrs["model"] != "" {
				key += "|" + p.Attrs["model"]
			}
			got[key] += p.Value
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	edit := rcv.Points(telemetry.MetricCodeEditDecision)
	if len(edit) != 1 || edit[0].Attrs["decision"] != "accept" || edit[0].Attrs["source"] != "user_temporary" || edit[0].Attrs["language"] != "Go" || edit[0].Attrs["tool_name"] != "Edit" {
		t.Errorf("code_edit_tool.decision: %+v", edit)
	}
	if len(rcv.Points(telemetry.MetricActiveTime)) != 1 {
		t.Errorf("active_time.total: %+v", rcv.Points(telemetry.MetricActiveTime))
	}
	events := map[string]int{}
	for _, l := range rcv.Logs() {
		a := otlptest.Attrs(l.Attributes)
		events[a["event.name"]]++
		if l.Body.GetStringValue() != "claude_code."+a["event.name"] || a["session.id"] != "S1" || a["event.timestamp"] == "" {
			t.Errorf("event %v: body %q", a, l.Body.GetStringValue())
		}
		if a["event.name"] == telemetry.EventUserPrompt && (a["prompt"] != "" || a["prompt_length"] == "") {
			t.Errorf("user_prompt without log_user_prompts: %v", a)
		}
	}
	for name, n := range map[string]int{telemetry.EventUserPrompt: 1, telemetry.EventAPIRequest: 2, telemetry.EventToolResult: 4, telemetry.EventToolDecision: 4} {
		if events[name] != n {
			t.Errorf("%d %s events, want %d (all: %v)", events[name], name, n, events)
		}
	}
}

// checkTree checks each named span's parent (by name; "" is a root).
func checkTree(t *testing.T, rcv *otlptest.Receiver, parents map[string]string) {
	t.Helper()
	spans := rcv.Spans()
	byID := map[string]string{}
	for _, sp := range spans {
		byID[string(sp.SpanId)] = spanName(sp.Name, otlptest.Attrs(sp.Attributes))
	}
	seen := map[string]bool{}
	for _, sp := range spans {
		name := spanName(sp.Name, otlptest.Attrs(sp.Attributes))
		want, ok := parents[name]
		if !ok {
			continue
		}
		seen[name] = true
		if got := byID[string(sp.ParentSpanId)]; got != want {
			t.Errorf("span %s: parent %q, want %q", name, got, want)
		}
	}
	for name := range parents {
		if !seen[name] {
			t.Errorf("no span %s among %d", name, len(spans))
		}
	}
}

// spanName names a tool span by its tool.
func spanName(name string, attrs map[string]string) string {
	if name == telemetry.SpanTool {
		return attrs["tool_name"]
	}
	return name
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
