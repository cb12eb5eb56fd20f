// Package listing holds what front ends list for a user: the providers
// and models a session may use and what a folder offers (skills, commands,
// agents). The application fills these in and the front ends show them,
// so neither imports the other for the types.
package listing

import (
	"github.com/tandem-agent/tandem/internal/skills"
	"github.com/tandem-agent/tandem/internal/subagent"
)

// ProviderInfo describes a configured provider. It never carries a key.
type ProviderInfo struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	BaseURL string `json:"base_url,omitempty"`
	// HasKey says a key is configured (the key itself is never sent).
	HasKey bool `json:"has_key"`
}

// ModelInfo describes a model a session may use.
type ModelInfo struct {
	ID            string   `json:"id"` // "provider/model"
	Provider      string   `json:"provider"`
	Name          string   `json:"name,omitempty"`
	ContextWindow int64    `json:"context_window,omitempty"`
	MaxOutput     int64    `json:"max_output,omitempty"`
	InputPerMTok  *float64 `json:"input_cost_per_mtok,omitempty"`
	OutputPerMTok *float64 `json:"output_cost_per_mtok,omitempty"`
	Default       bool     `json:"default,omitempty"`
	// Status is "" for an active model, else where it stands ("legacy",
	// "deprecated, retires 2027-01-22"); retired models are not listed.
	Status string `json:"status,omitempty"`
}

// Extensions is what a folder or a session offers: skills, custom
// commands and agents, tandem's built-in commands, and the problems found
// in their files.
type Extensions struct {
	Skills   []*skills.Skill   `json:"skills"`
	Commands []*skills.Command `json:"commands"`
	Agents   []*subagent.Def   `json:"agents"`
	Builtins []string          `json:"builtin_commands"`
	Notices  []string          `json:"notices,omitempty"`
	Warnings []skills.Warning  `json:"warnings,omitempty"`
}

// SlashCommand is a command a prompt may start with ("/name args").
type SlashCommand struct {
	Name         string
	Description  string
	ArgumentHint string
}
