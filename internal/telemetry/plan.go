package telemetry

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/config"
)

// Signal names one kind of telemetry.
type Signal string

const (
	Metrics Signal = "metrics"
	Logs    Signal = "logs"
	Traces  Signal = "traces"
)

// Signals lists them in a fixed order.
func Signals() []Signal { return []Signal{Metrics, Logs, Traces} }

// Protocols of the OTLP exporters tandem has.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Plan is what to export and how, decided from the environment and the
// user config by Decide. The zero Plan exports nothing.
type Plan struct {
	// On lists the signals exported; Protocol gives each one's.
	On       map[Signal]bool
	Protocol map[Signal]string
	// Endpoint and Headers come from the config file; the OTLP exporters
	// read OTEL_EXPORTER_OTLP_* themselves (through Getenv), and Decide
	// keeps these only where the environment sets none.
	Endpoint string
	Headers  map[string]string
	// Getenv is the environment the exporters read their variables from
	// (Decide's; nil: none, the plan alone).
	Getenv func(string) string

	MetricInterval time.Duration
	LogsInterval   time.Duration

	LogUserPrompts bool
	LogToolDetails bool

	ResourceAttributes map[string]string
}

// Any reports whether anything is exported.
func (p Plan) Any() bool {
	for _, on := range p.On {
		if on {
			return true
		}
	}
	return false
}

// Decide reads the standard OTEL_* variables (they win) and the user
// config's telemetry section (file names it in errors). Telemetry is off
// unless one of them asks for it: an exporter named otlp, an OTLP endpoint,
// telemetry.enabled, or TANDEM_ENABLE_TELEMETRY=1 (CLAUDE_CODE_ENABLE_TELEMETRY=1
// too, so a Claude Code set-up carries over). OTEL_SDK_DISABLED=true,
// TANDEM_ENABLE_TELEMETRY=0 or "enabled": false turn it off.
func Decide(getenv func(string) string, cfg *config.Telemetry, file string) (Plan, error) {
	if cfg == nil {
		cfg = &config.Telemetry{}
	}
	plan := Plan{Getenv: getenv}
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return plan, nil
	}
	enabled, err := enabledSwitch(getenv, cfg)
	if err != nil {
		return plan, err
	}
	if enabled != nil && !*enabled {
		return plan, nil
	}
	endpointSet := cfg.Endpoint != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	plan.On = map[Signal]bool{}
	plan.Protocol = map[Signal]string{}
	fileExporter := map[Signal]string{Metrics: cfg.MetricsExporter, Logs: cfg.LogsExporter, Traces: cfg.TracesExporter}
	for _, sig := range Signals() {
		name, src := envExporter(getenv, sig), "OTEL_"+strings.ToUpper(string(sig))+"_EXPORTER"
		if name == "" {
			name, src = fileExporter[sig], file+": telemetry."+string(sig)+"_exporter"
		}
		switch name {
		case "otlp":
			plan.On[sig] = true
		case "none":
		case "":
			plan.On[sig] = (enabled != nil && *enabled) || endpointSet || getenv(signalVar(sig, "ENDPOINT")) != ""
		default:
			return Plan{}, fmt.Errorf("telemetry: %s is %q, an exporter tandem does not have: use otlp (or none)", src, name)
		}
		if !plan.On[sig] {
			continue
		}
		proto := firstSet(getenv(signalVar(sig, "PROTOCOL")), getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), cfg.Protocol, ProtocolHTTP)
		switch proto {
		case ProtocolGRPC, ProtocolHTTP:
		case "http/json":
			return Plan{}, fmt.Errorf("telemetry: OTLP protocol http/json is not supported by the Go exporters: use http/protobuf or grpc")
		default:
			return Plan{}, fmt.Errorf("telemetry: OTLP protocol %q: use http/protobuf or grpc", proto)
		}
		plan.Protocol[sig] = proto
	}
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		plan.Endpoint = cfg.Endpoint
	}
	if getenv("OTEL_EXPORTER_OTLP_HEADERS") == "" {
		plan.Headers = maps.Clone(cfg.Headers)
	}
	if plan.MetricInterval, err = interval(getenv, "OTEL_METRIC_EXPORT_INTERVAL", cfg.MetricExportInterval, file+": telemetry.metric_export_interval", 60*time.Second); err != nil {
		return Plan{}, err
	}
	if plan.LogsInterval, err = interval(getenv, "OTEL_LOGS_EXPORT_INTERVAL", cfg.LogsExportInterval, file+": telemetry.logs_export_interval", 5*time.Second); err != nil {
		return Plan{}, err
	}
	plan.LogUserPrompts = cfg.LogUserPrompts || truthy(getenv("OTEL_LOG_USER_PROMPTS"))
	plan.LogToolDetails = cfg.LogToolDetails || truthy(getenv("OTEL_LOG_TOOL_DETAILS"))
	plan.ResourceAttributes = maps.Clone(cfg.ResourceAttributes)
	return plan, nil
}

// enabledSwitch is the explicit on/off: the environment's, else the
// file's; nil when neither says.
func enabledSwitch(getenv func(string) string, cfg *config.Telemetry) (*bool, error) {
	for _, name := range []string{"TANDEM_ENABLE_TELEMETRY", "CLAUDE_CODE_ENABLE_TELEMETRY"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("telemetry: %s=%q: use 1 (on) or 0 (off)", name, v)
		}
		return &b, nil
	}
	return cfg.Enabled, nil
}

// envExporter is OTEL_<SIGNAL>_EXPORTER; of a list ("otlp,console") the
// first tandem has, else the first.
func envExporter(getenv func(string) string, sig Signal) string {
	v := getenv("OTEL_" + strings.ToUpper(string(sig)) + "_EXPORTER")
	if v == "" {
		return ""
	}
	parts := strings.Split(v, ",")
	for _, p := range parts {
		if p = strings.TrimSpace(p); p == "otlp" || p == "none" {
			return p
		}
	}
	return strings.TrimSpace(parts[0])
}

// signalVar is OTEL_EXPORTER_OTLP_<SIGNAL>_<what>.
func signalVar(sig Signal, what string) string {
	return "OTEL_EXPORTER_OTLP_" + strings.ToUpper(string(sig)) + "_" + what
}

// interval reads milliseconds from env, else a Go duration from the file.
func interval(getenv func(string) string, env, file, where string, def time.Duration) (time.Duration, error) {
	if v := getenv(env); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 {
			return 0, fmt.Errorf("telemetry: %s=%q: give milliseconds, e.g. 10000", env, v)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	if file == "" {
		return def, nil
	}
	d, err := time.ParseDuration(file)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("telemetry: %s %q: give a duration such as 10s", where, file)
	}
	return d, nil
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func truthy(v string) bool {
	b, err := strconv.ParseBool(v)
	return err == nil && b
}
