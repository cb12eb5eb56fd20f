package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// LoadScript reads and validates a JSON script file.
func LoadScript(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, fmt.Errorf("load script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return Script{}, fmt.Errorf("load script %s: %w", path, err)
	}
	return s, nil
}

// rawScript defers step decoding so errors can name the step.
type rawScript struct {
	Steps            []json.RawMessage `json:"steps"`
	Fallback         json.RawMessage   `json:"fallback,omitempty"`
	SideModelPattern *string           `json:"side_model_pattern,omitempty"`
	SideWithoutTools *bool             `json:"side_without_tools,omitempty"`
	RequireKey       string            `json:"require_key,omitempty"`
	Models           []string          `json:"models,omitempty"`
	ChunkSize        int               `json:"chunk_size,omitempty"`
	ContextLimit     int64             `json:"context_limit,omitempty"`
	OverflowDialect  string            `json:"overflow_dialect,omitempty"`
	StepMarkers      bool              `json:"step_markers,omitempty"`
}

// ParseScript decodes and validates a JSON script. Unknown fields are
// errors so that typos do not silently change a test.
func ParseScript(data []byte) (Script, error) {
	var raw rawScript
	if err := decodeStrict(data, &raw); err != nil {
		return Script{}, describeJSONError(data, err)
	}
	s := Script{
		SideModelPattern: raw.SideModelPattern,
		SideWithoutTools: raw.SideWithoutTools,
		RequireKey:       raw.RequireKey,
		Models:           raw.Models,
		ChunkSize:        raw.ChunkSize,
		ContextLimit:     raw.ContextLimit,
		OverflowDialect:  raw.OverflowDialect,
		StepMarkers:      raw.StepMarkers,
	}
	for i, rs := range raw.Steps {
		var st Step
		if err := decodeStrict(rs, &st); err != nil {
			return Script{}, fmt.Errorf("steps[%d]: %w", i, describeJSONError(rs, err))
		}
		s.Steps = append(s.Steps, st)
	}
	if len(raw.Fallback) > 0 && !bytes.Equal(bytes.TrimSpace(raw.Fallback), []byte("null")) {
		var fb Step
		if err := decodeStrict(raw.Fallback, &fb); err != nil {
			return Script{}, fmt.Errorf("fallback: %w", describeJSONError(raw.Fallback, err))
		}
		s.Fallback = &fb
	}
	if err := s.Validate(); err != nil {
		return Script{}, err
	}
	return s, nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// describeJSONError adds a line:column to syntax and type errors.
func describeJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(data, se.Offset)
		return fmt.Errorf("invalid JSON at line %d column %d: %w", line, col, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := position(data, te.Offset)
		return fmt.Errorf("field %q at line %d column %d: expected %s, got JSON %s", te.Field, line, col, te.Type, te.Value)
	}
	return err
}

func position(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// Validate checks a script built in Go or parsed from JSON. Errors name the
// step and field and say what is allowed.
func (s *Script) Validate() error {
	if s.SideModelPattern != nil {
		if _, err := regexp.Compile(*s.SideModelPattern); err != nil {
			return fmt.Errorf("side_model_pattern: not a valid regular expression: %w", err)
		}
	}
	if s.ChunkSize < 0 {
		return fmt.Errorf("chunk_size: must be >= 0, got %d", s.ChunkSize)
	}
	if s.ContextLimit < 0 {
		return fmt.Errorf("context_limit: must be >= 0, got %d", s.ContextLimit)
	}
	if _, ok := overflowDialects[s.OverflowDialect]; !ok {
		return fmt.Errorf("overflow_dialect: unknown %q; use one of %s", s.OverflowDialect, dialectNames())
	}
	for i := range s.Steps {
		if err := s.Steps[i].validate(); err != nil {
			return fmt.Errorf("steps[%d].%w", i, err)
		}
	}
	for i, th := range s.Threads {
		if th.Match == "" {
			return fmt.Errorf("threads[%d].match: required (text of the thread's first user message)", i)
		}
		for j := range th.Steps {
			if err := th.Steps[j].validate(); err != nil {
				return fmt.Errorf("threads[%d].steps[%d].%w", i, j, err)
			}
		}
	}
	if s.Fallback != nil {
		if err := s.Fallback.validate(); err != nil {
			return fmt.Errorf("fallback.%w", err)
		}
	}
	return nil
}

func (s *Step) validate() error {
	for j, tc := range s.ToolCalls {
		if tc.Name == "" {
			return fmt.Errorf("tool_calls[%d].name: required (the tool to call, e.g. \"Read\")", j)
		}
		if len(tc.Input) > 0 {
			var obj map[string]any
			if err := json.Unmarshal(tc.Input, &obj); err != nil || obj == nil {
				return fmt.Errorf("tool_calls[%d].input: must be a JSON object, got %s", j, truncate(string(tc.Input), 60))
			}
		}
	}
	if s.Usage != nil {
		u := s.Usage
		if u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadInputTokens < 0 || u.CacheCreationInputTokens < 0 {
			return errors.New("usage: token counts must be >= 0")
		}
	}
	if f := s.Fault; f != nil {
		if f.Status == 0 && !f.MidStreamError && f.DropAfterBytes == nil && f.FirstByteDelayMS == 0 && f.DelayBetweenChunksMS == 0 && f.Stall == "" {
			return errors.New("fault: sets nothing; use status, mid_stream_error, drop_after_bytes, first_byte_delay_ms, delay_between_chunks_ms or stall")
		}
		if err := s.Fault.validate(); err != nil {
			return fmt.Errorf("fault.%w", err)
		}
	}
	return nil
}

func (f *Fault) validate() error {
	// 200 only with a content type: a success status carrying something
	// that is not the reply (an HTML page, a JSON error).
	if f.Status != 0 && (f.Status < 400 || f.Status > 599) && (f.Status != 200 || f.ContentType == "") {
		return fmt.Errorf("status: must be an HTTP error status 400-599 (or 200 with content_type), got %d", f.Status)
	}
	switch f.Stall {
	case "", StallHeaders, StallBody, StallPings:
	default:
		return fmt.Errorf("stall: %q is not a stall mode; use headers, body or pings", f.Stall)
	}
	if f.StallAfterEvents < 0 || f.PingEveryMS < 0 {
		return errors.New("stall_after_events and ping_every_ms: must be >= 0")
	}
	if f.RetryAfter != "" {
		if v, err := strconv.ParseFloat(f.RetryAfter, 64); err != nil || v < 0 {
			return fmt.Errorf("retry_after: must be a number of seconds like \"1\" or \"0.2\", got %q", f.RetryAfter)
		}
	}
	if len(f.Body) > 0 && !json.Valid(f.Body) {
		return errors.New("body: must be valid JSON")
	}
	if f.DropAfterBytes != nil && *f.DropAfterBytes < 0 {
		return fmt.Errorf("drop_after_bytes: must be >= 0, got %d", *f.DropAfterBytes)
	}
	if f.FirstByteDelayMS < 0 {
		return fmt.Errorf("first_byte_delay_ms: must be >= 0, got %d", f.FirstByteDelayMS)
	}
	if f.DelayBetweenChunksMS < 0 {
		return fmt.Errorf("delay_between_chunks_ms: must be >= 0, got %d", f.DelayBetweenChunksMS)
	}
	if f.Times < 0 {
		return fmt.Errorf("times: must be >= 0, got %d", f.Times)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
