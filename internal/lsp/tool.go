package lsp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed tool.md
var toolDescription string

// maxResults bounds the locations or symbols one answer lists.
const maxResults = 100

// Tool is the model-facing lsp tool (lsp.tool in the config): definition,
// references, hover and workspace symbols from the session's servers.
type Tool struct {
	tool.FileAccessor // declares file_path as read: the permission engine judges it
	m                 *Manager
	once              sync.Once
	none              string // why no server can run here ("" once one can)
}

// NewTool returns the lsp tool over m.
func NewTool(m *Manager) *Tool { return &Tool{FileAccessor: tool.PathField("file_path", false), m: m} }

func (t *Tool) Name() string        { return "lsp" }
func (t *Tool) Description() string { return toolDescription }
func (t *Tool) ReadOnly() bool      { return true }
func (t *Tool) Kind() tool.Kind     { return tool.KindRead }

func (t *Tool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{
 "operation":{"type":"string","enum":["definition","references","hover","workspace_symbol"]},
 "file_path":{"type":"string","description":"the file holding the symbol (absolute, or relative to the working folder)"},
 "line":{"type":"integer","minimum":1,"description":"the symbol's line, from 1"},
 "character":{"type":"integer","minimum":1,"description":"the symbol's column on that line, from 1"},
 "query":{"type":"string","description":"workspace_symbol: the name or part of it"}},
 "required":["operation"],"additionalProperties":false}`)
}

// Summary is the call's title.
func (t *Tool) Summary(input json.RawMessage) string {
	op, f := tool.Str(input, "operation"), tool.Str(input, "file_path")
	if op == "workspace_symbol" {
		return "lsp symbols " + tool.Str(input, "query")
	}
	return strings.TrimSpace("lsp " + op + " " + filepath.Base(f))
}

// Unavailable leaves the tool out when no configured server is installed.
func (t *Tool) Unavailable(string) string {
	t.once.Do(func() {
		t.none = "no language server is installed (gopls, pyright, typescript-language-server, rust-analyzer, clangd)"
		for _, srv := range t.m.opts.Settings.Servers {
			if _, err := findCommand(srv, pathEnv(t.m.opts.Env), t.m.opts.BinDirs); err == nil {
				t.none = ""
				return
			}
		}
	})
	return t.none
}

type toolInput struct {
	Operation string `json:"operation"`
	FilePath  string `json:"file_path"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Query     string `json:"query"`
}

func (t *Tool) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	var in toolInput
	if err := tool.DecodeInput(t.Name(), call.Input, &in); err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	dir := call.Env.WorkDir
	if in.Operation == "workspace_symbol" {
		return t.symbols(ctx, in.Query, dir), nil
	}
	switch in.Operation {
	case "definition", "references", "hover":
	default:
		return tool.ErrorResult(fmt.Sprintf("operation %q is not one of definition, references, hover, workspace_symbol", in.Operation)), nil
	}
	if in.FilePath == "" || in.Line < 1 || in.Character < 1 {
		return tool.ErrorResult(in.Operation + " needs file_path, line and character (line and character count from 1)"), nil
	}
	path := in.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	path = filepath.Clean(path)
	c, langID, err := t.m.clientFor(ctx, path)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	if c == nil {
		return tool.ErrorResult("no language server serves " + in.FilePath + " (see lsp.servers in docs/lsp.md)"), nil
	}
	if _, err := c.sync(ctx, path, langID); err != nil {
		return tool.ErrorResult(fmt.Sprintf("read %s: %v", in.FilePath, err)), nil
	}
	pos, err := position(path, in.Line, in.Character)
	if err != nil {
		return tool.ErrorResult(err.Error()), nil
	}
	p := positionParams{TextDocument: documentID{URI: fileURI(path)}, Position: pos}
	var raw json.RawMessage
	switch in.Operation {
	case "definition":
		err = c.conn.Call(ctx, "textDocument/definition", p, &raw)
	case "references":
		rp := referenceParams{positionParams: p}
		rp.Context.IncludeDeclaration = true
		err = c.conn.Call(ctx, "textDocument/references", rp, &raw)
	case "hover":
		err = c.conn.Call(ctx, "textDocument/hover", p, &raw)
		if err == nil {
			return tool.Result{Content: hoverText(raw)}, nil
		}
	}
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("%s: %v", c.srv.Name, err)), nil
	}
	return tool.Result{Content: formatLocations(locations(raw), dir)}, nil
}

func (t *Tool) symbols(ctx context.Context, query, dir string) tool.Result {
	clients := t.m.running()
	if len(clients) == 0 {
		return tool.ErrorResult("no language server is running yet: ask about a position in a file of the language first (definition or hover), which starts its server")
	}
	var lines []string
	for _, c := range clients {
		var syms []symbolInformation
		if err := c.conn.Call(ctx, "workspace/symbol", workspaceSymbolParams{Query: query}, &syms); err != nil {
			lines = append(lines, fmt.Sprintf("%s: %v", c.srv.Name, err))
			continue
		}
		for _, s := range syms {
			if len(lines) == maxResults {
				break
			}
			loc := formatLocation(s.Location, dir)
			name := s.Name
			if s.ContainerName != "" {
				name = s.ContainerName + "." + s.Name
			}
			lines = append(lines, loc+" "+name)
		}
	}
	if len(lines) == 0 {
		return tool.Result{Content: "No symbols match."}
	}
	return tool.Result{Content: strings.Join(lines, "\n")}
}

// locations reads a definition or references answer: a Location, a list
// of them, or a list of LocationLinks.
func locations(raw json.RawMessage) []Location {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []Location
	for _, item := range list {
		var l struct {
			URI                  string `json:"uri"`
			Range                Range  `json:"range"`
			TargetURI            string `json:"targetUri"`
			TargetSelectionRange Range  `json:"targetSelectionRange"`
		}
		if json.Unmarshal(item, &l) != nil {
			continue
		}
		if l.TargetURI != "" {
			out = append(out, Location{URI: l.TargetURI, Range: l.TargetSelectionRange})
		} else if l.URI != "" {
			out = append(out, Location{URI: l.URI, Range: l.Range})
		}
	}
	return out
}

func formatLocations(locs []Location, dir string) string {
	if len(locs) == 0 {
		return "No locations found."
	}
	var lines []string
	for i, l := range locs {
		if i == maxResults {
			lines = append(lines, fmt.Sprintf("... and %d more", len(locs)-i))
			break
		}
		lines = append(lines, formatLocation(l, dir))
	}
	return strings.Join(lines, "\n")
}

// formatLocation is path:line:column and the line's text.
func formatLocation(l Location, dir string) string {
	path := uriPath(l.URI)
	if path == "" {
		return l.URI
	}
	s := fmt.Sprintf("%s:%d:%d", relPath(dir, path), l.Range.Start.Line+1, l.Range.Start.Character+1)
	if data, err := readSource(path); err == nil {
		lines := strings.Split(string(data), "\n")
		if n := l.Range.Start.Line; n < len(lines) {
			text := strings.TrimSpace(lines[n])
			if len(text) > 200 {
				text = text[:200] + "..."
			}
			s += ": " + text
		}
	}
	return s
}

// hoverText is the text of a hover answer (MarkupContent, a MarkedString,
// or a list of them).
func hoverText(raw json.RawMessage) string {
	var h hoverResult
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 || string(h.Contents) == "null" {
		return "Nothing is known about this position."
	}
	var parts []json.RawMessage
	if json.Unmarshal(h.Contents, &parts) != nil {
		parts = []json.RawMessage{h.Contents}
	}
	var out []string
	for _, p := range parts {
		var s string
		if json.Unmarshal(p, &s) == nil {
			out = append(out, s)
			continue
		}
		var mc struct {
			Value string `json:"value"`
		}
		if json.Unmarshal(p, &mc) == nil {
			out = append(out, mc.Value)
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n\n"))
}

// position converts a one-based line and character (in characters) to
// LSP's zero-based line and UTF-16 offset.
func position(path string, line, char int) (Position, error) {
	data, err := readSource(path)
	if err != nil {
		return Position{}, err
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return Position{}, fmt.Errorf("%s has %d lines: line %d is past its end", filepath.Base(path), len(lines), line)
	}
	runes := []rune(lines[line-1])
	if char-1 > len(runes) {
		char = len(runes) + 1
	}
	return Position{Line: line - 1, Character: len(utf16.Encode(runes[:char-1]))}, nil
}
