package config

// Telemetry is the "telemetry" section: OpenTelemetry export of metrics,
// events (logs) and traces (internal/telemetry decides from it and the
// standard OTEL_* variables, which win). Read only from the user file: a
// project's file could otherwise send the user's prompts and usage to a
// collector of its choosing.
type Telemetry struct {
	// Enabled turns export on with the OTLP exporters for every signal
	// not named otherwise; false turns it off whatever else is set.
	Enabled *bool `json:"enabled,omitempty"`
	// MetricsExporter, LogsExporter and TracesExporter are "otlp" or
	// "none" (OTEL_METRICS_EXPORTER, OTEL_LOGS_EXPORTER,
	// OTEL_TRACES_EXPORTER win).
	MetricsExporter string `json:"metrics_exporter,omitempty"`
	LogsExporter    string `json:"logs_exporter,omitempty"`
	TracesExporter  string `json:"traces_exporter,omitempty"`
	// Endpoint, Protocol and Headers are the OTLP collector's
	// (OTEL_EXPORTER_OTLP_ENDPOINT, _PROTOCOL, _HEADERS win).
	Endpoint string            `json:"endpoint,omitempty"`
	Protocol string            `json:"protocol,omitempty"` // grpc | http/protobuf
	Headers  map[string]string `json:"headers,omitempty"`
	// MetricExportInterval and LogsExportInterval are Go durations
	// (OTEL_METRIC_EXPORT_INTERVAL, OTEL_LOGS_EXPORT_INTERVAL in ms win).
	MetricExportInterval string `json:"metric_export_interval,omitempty"`
	LogsExportInterval   string `json:"logs_export_interval,omitempty"`
	// LogUserPrompts puts prompt text in events and spans, LogToolDetails
	// tool inputs (OTEL_LOG_USER_PROMPTS=1, OTEL_LOG_TOOL_DETAILS=1 turn
	// them on too). Secrets are redacted either way.
	LogUserPrompts bool `json:"log_user_prompts,omitempty"`
	LogToolDetails bool `json:"log_tool_details,omitempty"`
	// ResourceAttributes are added to every signal's resource
	// (OTEL_RESOURCE_ATTRIBUTES adds more).
	ResourceAttributes map[string]string `json:"resource_attributes,omitempty"`
}

// IsZero reports whether the section is absent.
func (t *Telemetry) IsZero() bool {
	return t == nil || (t.Enabled == nil && t.MetricsExporter == "" && t.LogsExporter == "" && t.TracesExporter == "" &&
		t.Endpoint == "" && t.Protocol == "" && len(t.Headers) == 0 && t.MetricExportInterval == "" &&
		t.LogsExportInterval == "" && !t.LogUserPrompts && !t.LogToolDetails && len(t.ResourceAttributes) == 0)
}

// mergeTelemetry keeps the last layer that sets the section (only the
// user file can).
func (c *Config) mergeTelemetry(o *Config) {
	if !o.Telemetry.IsZero() {
		c.Telemetry = o.Telemetry
	}
}
