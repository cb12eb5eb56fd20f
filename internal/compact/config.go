// Package compact keeps long sessions inside the model's context window:
// it estimates how full a request is, prunes old tool output from requests
// (never from the store), picks what a summary replaces and what stays
// verbatim, renders the part to summarise, and recognises the context
// overflow errors providers send. The agent loop (internal/agent) drives
// it; docs/compaction.md explains the policy.
package compact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Config is the "compaction" section of tandem's config.
type Config struct {
	// Auto turns automatic compaction (at the threshold and on a
	// provider's overflow error) on or off; nil means on.
	Auto *bool `json:"auto,omitempty"`
	// Threshold is the fraction of the window a request may fill before
	// the conversation is compacted; 0 means DefaultThreshold.
	Threshold float64 `json:"threshold,omitempty"`
	// Model writes summaries ("provider/model"); "" means the session's.
	Model string `json:"model,omitempty"`
	// KeepRecentTokens bounds the recent messages kept verbatim after a
	// summary; 0 means an eighth of the window, at most 20000.
	KeepRecentTokens int64 `json:"keep_recent_tokens,omitempty"`
	// Prune turns pruning of old tool results on or off; nil means on.
	Prune *bool `json:"prune,omitempty"`
	// PruneKeepSteps is how many recent steps keep their tool results
	// whole; 0 means DefaultKeepSteps.
	PruneKeepSteps int `json:"prune_keep_steps,omitempty"`
	// PruneChunkSteps is how far the prune boundary moves at once, so the
	// cached prompt prefix changes rarely; 0 means DefaultChunkSteps.
	PruneChunkSteps int `json:"prune_chunk_steps,omitempty"`
	// PruneMinTokens: the boundary only moves when it cuts at least this
	// much; 0 means DefaultMinPruneTokens.
	PruneMinTokens int64 `json:"prune_min_tokens,omitempty"`
	// MaxResultTokens caps any one tool result in a request; 0 means
	// DefaultMaxResultTokens.
	MaxResultTokens int64 `json:"max_result_tokens,omitempty"`
}

// Defaults.
const (
	DefaultThreshold       = 0.8
	DefaultKeepSteps       = 6
	DefaultChunkSteps      = 8
	DefaultMinPruneTokens  = 20000
	DefaultMaxResultTokens = 25000
	maxKeepRecentTokens    = 20000
)

// Parse decodes and validates a raw "compaction" section (nil or empty
// means all defaults). source names the file for errors.
func Parse(raw json.RawMessage, source string) (Config, error) {
	var c Config
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("config %s: field \"compaction\": %w (see docs/compaction.md)", source, err)
	}
	return c, c.Validate(source)
}

// Validate reports the first bad setting.
func (c Config) Validate(source string) error {
	bad := func(field, msg string) error {
		return fmt.Errorf("config %s: field \"compaction.%s\": %s", source, field, msg)
	}
	switch {
	case c.Threshold < 0 || c.Threshold > 1:
		return bad("threshold", fmt.Sprintf("%v is not a fraction of the window; use a number between 0.1 and 1, e.g. 0.8", c.Threshold))
	case c.Threshold != 0 && c.Threshold < 0.1:
		return bad("threshold", fmt.Sprintf("%v would compact almost every step; use at least 0.1", c.Threshold))
	case c.KeepRecentTokens < 0:
		return bad("keep_recent_tokens", "must not be negative")
	case c.PruneKeepSteps < 0:
		return bad("prune_keep_steps", "must not be negative")
	case c.PruneChunkSteps < 0:
		return bad("prune_chunk_steps", "must not be negative")
	case c.PruneMinTokens < 0:
		return bad("prune_min_tokens", "must not be negative")
	case c.MaxResultTokens < 0:
		return bad("max_result_tokens", "must not be negative")
	}
	return nil
}

// AutoOn reports whether automatic compaction is on.
func (c Config) AutoOn() bool { return c.Auto == nil || *c.Auto }

// PruneOn reports whether pruning is on.
func (c Config) PruneOn() bool { return c.Prune == nil || *c.Prune }

// ThresholdTokens is the request size that triggers compaction.
func (c Config) ThresholdTokens(window int64) int64 {
	t := c.Threshold
	if t == 0 {
		t = DefaultThreshold
	}
	return int64(float64(window) * t)
}

// KeepRecent is the budget of the verbatim tail for a window.
func (c Config) KeepRecent(window int64) int64 {
	if c.KeepRecentTokens > 0 {
		return c.KeepRecentTokens
	}
	return min(window/8, maxKeepRecentTokens)
}

func (c Config) keepSteps() int  { return orInt(c.PruneKeepSteps, DefaultKeepSteps) }
func (c Config) chunkSteps() int { return orInt(c.PruneChunkSteps, DefaultChunkSteps) }
func (c Config) minPrune() int64 {
	if c.PruneMinTokens > 0 {
		return c.PruneMinTokens
	}
	return DefaultMinPruneTokens
}
func (c Config) maxResult() int64 {
	if c.MaxResultTokens > 0 {
		return c.MaxResultTokens
	}
	return DefaultMaxResultTokens
}

func orInt(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Triggers of a compaction, as events and hooks name them.
const (
	TriggerAuto     = "auto"     // the next request would pass the threshold
	TriggerManual   = "manual"   // /compact, tandem sessions compact, the API
	TriggerOverflow = "overflow" // the provider refused a request as too long
)

// Command parses a "/compact [focus]" prompt.
func Command(prompt string) (focus string, ok bool) {
	p := strings.TrimSpace(prompt)
	rest, found := strings.CutPrefix(p, "/compact")
	if !found || (rest != "" && rest[0] != ' ' && rest[0] != '\n' && rest[0] != '\t') {
		return "", false
	}
	return strings.TrimSpace(rest), true
}
