package lsp

import "encoding/json"

// The few Language Server Protocol 3.17 messages tandem sends and reads,
// written out here: the Go modules that carry the whole protocol stop at
// 3.16 (no pull diagnostics) and bring a logger and a codec with them.

// Position is zero-based; Character counts UTF-16 code units.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span in a document.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a span in a document named by URI.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// Severity of a diagnostic (1 is an error).
type Severity int

const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
	SeverityHint    Severity = 4
)

// Diagnostic is one problem a server found.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity Severity        `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type versionedDocument struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type documentID struct {
	URI string `json:"uri"`
}

type contentChange struct {
	Text string `json:"text"` // the whole document: every server takes full sync
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type didChangeParams struct {
	TextDocument   versionedDocument `json:"textDocument"`
	ContentChanges []contentChange   `json:"contentChanges"`
}

type didCloseParams struct {
	TextDocument documentID `json:"textDocument"`
}

type documentDiagnosticParams struct {
	TextDocument documentID `json:"textDocument"`
}

// documentDiagnosticReport is a pull answer; kind "unchanged" never comes
// since no previousResultId is sent.
type documentDiagnosticReport struct {
	Kind  string       `json:"kind"`
	Items []Diagnostic `json:"items"`
}

type positionParams struct {
	TextDocument documentID `json:"textDocument"`
	Position     Position   `json:"position"`
}

type referenceParams struct {
	positionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

type workspaceSymbolParams struct {
	Query string `json:"query"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	ProcessID             int               `json:"processId"`
	RootURI               string            `json:"rootUri"`
	WorkspaceFolders      []workspaceFolder `json:"workspaceFolders"`
	Capabilities          json.RawMessage   `json:"capabilities"`
	InitializationOptions json.RawMessage   `json:"initializationOptions,omitempty"`
	ClientInfo            struct {
		Name string `json:"name"`
	} `json:"clientInfo"`
}

// clientCapabilities says what tandem reads: versioned publishes, pull
// diagnostics, the few navigation requests of the lsp tool.
const clientCapabilities = `{
 "workspace": {"configuration": true, "workspaceFolders": true, "diagnostics": {"refreshSupport": false}},
 "textDocument": {
  "synchronization": {"didSave": false, "dynamicRegistration": false},
  "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
  "diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false},
  "hover": {"contentFormat": ["plaintext", "markdown"]},
  "definition": {"linkSupport": false},
  "references": {},
  "documentSymbol": {"hierarchicalDocumentSymbolSupport": false}
 },
 "window": {"workDoneProgress": false},
 "general": {"positionEncodings": ["utf-16"]}
}`

type initializeResult struct {
	Capabilities struct {
		DiagnosticProvider      json.RawMessage `json:"diagnosticProvider"`
		DefinitionProvider      json.RawMessage `json:"definitionProvider"`
		ReferencesProvider      json.RawMessage `json:"referencesProvider"`
		HoverProvider           json.RawMessage `json:"hoverProvider"`
		WorkspaceSymbolProvider json.RawMessage `json:"workspaceSymbolProvider"`
	} `json:"capabilities"`
}

// offers reads a capability that is a boolean or an options object.
func offers(raw json.RawMessage) bool {
	s := string(raw)
	return s != "" && s != "null" && s != "false"
}

type hoverResult struct {
	Contents json.RawMessage `json:"contents"`
}

type symbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      Location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}
