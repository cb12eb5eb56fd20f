package config

import (
	"encoding/json"
	"maps"
)

// LSP is the "lsp" section: the language servers whose diagnostics follow
// each edit (internal/lsp, docs/lsp.md). The zero value is on, with the
// built-in servers, the model-facing lsp tool off.
type LSP struct {
	// Disabled turns language servers off for the session.
	Disabled bool `json:"disabled,omitempty"`
	// Tool offers the model the lsp tool (definition, references, hover,
	// workspace symbols).
	Tool bool `json:"tool,omitempty"`
	// WaitMS bounds the wait for a file's diagnostics after an edit
	// (default 3000); StartMS the wait for a server's start on first use
	// (default 15000).
	WaitMS  int `json:"wait_ms,omitempty"`
	StartMS int `json:"start_ms,omitempty"`
	// MaxDiagnostics caps the new errors appended to one tool result
	// (default 10).
	MaxDiagnostics int `json:"max_diagnostics,omitempty"`
	// Servers adds servers or changes the built-in ones (gopls, pyright,
	// typescript, rust-analyzer, clangd) by name. A project file may set
	// them only in a trusted folder: they name programs to run.
	Servers map[string]LSPServer `json:"servers,omitempty"`
}

// LSPServer is one language server. For a built-in name, the fields given
// replace the built-in's.
type LSPServer struct {
	// Command is the program and its arguments (looked up on PATH).
	Command []string `json:"command,omitempty"`
	// Extensions are the file name endings it serves (".go").
	Extensions []string `json:"extensions,omitempty"`
	// LanguageID is the LSP language id of its files (default: the
	// extension without the dot).
	LanguageID string `json:"language_id,omitempty"`
	// RootMarkers are files whose nearest folder is the server's root
	// (go.mod); none: the session's folder.
	RootMarkers []string `json:"root_markers,omitempty"`
	// Env is added to the server's environment.
	Env map[string]string `json:"env,omitempty"`
	// InitializationOptions is sent with initialize; Settings answers the
	// server's workspace/configuration requests.
	InitializationOptions json.RawMessage `json:"initialization_options,omitempty"`
	Settings              json.RawMessage `json:"settings,omitempty"`
	Disabled              bool            `json:"disabled,omitempty"`
}

// mergeLSP lays o over c: scalars o sets win, servers by name.
func mergeLSP(c, o *LSP) *LSP {
	if o == nil {
		return c
	}
	if c == nil {
		cp := *o
		cp.Servers = maps.Clone(o.Servers)
		return &cp
	}
	out := *c
	out.Disabled = c.Disabled || o.Disabled
	out.Tool = c.Tool || o.Tool
	for _, f := range []struct {
		dst *int
		src int
	}{
		{&out.WaitMS, o.WaitMS}, {&out.StartMS, o.StartMS}, {&out.MaxDiagnostics, o.MaxDiagnostics},
	} {
		if f.src != 0 {
			*f.dst = f.src
		}
	}
	out.Servers = maps.Clone(c.Servers)
	for name, s := range o.Servers {
		if out.Servers == nil {
			out.Servers = map[string]LSPServer{}
		}
		out.Servers[name] = s
	}
	return &out
}
