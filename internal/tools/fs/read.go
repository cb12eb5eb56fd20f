package fs

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"

	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/tool"
)

//go:embed read.md
var readDescription string

// Limits of the Read tool.
const (
	defaultReadLines = 2000
	maxLineChars     = 2000
	// maxWholeRead is the largest text file returned without offset/limit.
	maxWholeRead = 256 << 10
	// maxReadOutput bounds one call's output whatever offset/limit say.
	maxReadOutput = 256 << 10
	// maxInMemory is the largest file loaded whole (and hashed); larger
	// files are streamed.
	maxInMemory  = 16 << 20
	maxLineParam = math.MaxInt32
)

const readSchema = `{
  "type": "object",
  "properties": {
    "file_path": {"type": "string", "description": "The absolute path to the file to read"},
    "offset": {"type": "number", "description": "The line number to start reading from. Only provide if the file is too large to read at once"},
    "limit": {"type": "number", "description": "The number of lines to read. Only provide if the file is too large to read at once."},
    "pages": {"type": "string", "description": "Page range for PDF files (e.g., \"1-5\", \"3\", \"10-20\"). Only applicable to PDF files. Maximum 20 pages per request."}
  },
  "required": ["file_path"],
  "additionalProperties": false
}`

// Read is the Read tool: text with line numbers, images, PDF text.
type Read struct{}

// NewRead returns the Read tool.
func NewRead() *Read { return &Read{} }

func (*Read) Name() string            { return "Read" }
func (*Read) Description() string     { return readDescription }
func (*Read) Schema() json.RawMessage { return json.RawMessage(readSchema) }
func (*Read) ReadOnly() bool          { return true }

type readInput struct {
	FilePath string   `json:"file_path"`
	Offset   *float64 `json:"offset"`
	Limit    *float64 `json:"limit"`
	Pages    *string  `json:"pages"`
}

// readRequest is a validated Read call.
type readRequest struct {
	given, abs, real string
	offset, limit    int // offset 1-based; limit 0 means default
	ranged           bool
	pages            string
}

func (r *Read) Execute(ctx context.Context, call tool.Call) (tool.Result, error) {
	if call.Env == nil || call.Env.State == nil {
		return tool.Result{}, errors.New("Read: tool call without a session Env")
	}
	req, msg := parseReadInput(call.Env, call.Input)
	if msg != "" {
		return tool.ErrorResult(msg), nil
	}
	info, err := os.Stat(req.real)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return tool.ErrorResult(missingFileMessage(req.abs, call.Env.WorkDir)), nil
		}
		return tool.ErrorResult(fmt.Sprintf("Cannot read %s: %v", req.abs, err)), nil
	}
	if info.IsDir() {
		return tool.ErrorResult(fmt.Sprintf("%s is a directory, not a file. Use the Glob tool to list files matching a pattern, or run `ls %s` with the Bash tool.", req.abs, req.abs)), nil
	}
	if !info.Mode().IsRegular() {
		return tool.ErrorResult(fmt.Sprintf("%s is not a regular file (%s); Read only reads regular files.", req.abs, info.Mode().Type())), nil
	}
	if info.Size() == 0 {
		TrackerFrom(call.Env).RecordContent(req.real, info, nil)
		return tool.Result{Content: fmt.Sprintf("<system-reminder>Warning: the file %s exists but its contents are empty.</system-reminder>", req.abs),
			Meta: map[string]any{"file_path": req.abs, "empty": true}}, nil
	}
	head, err := readHead(req.real, 8192)
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("Cannot read %s: %v", req.abs, err)), nil
	}
	switch kind := sniffKind(head); kind {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return readImage(call.Env, req, info, kind)
	case "application/pdf":
		return readPDF(ctx, call.Env, req, info)
	}
	if req.pages != "" {
		return tool.ErrorResult(fmt.Sprintf("The pages parameter only applies to PDF files, and %s is not a PDF. Use offset and limit for text files.", req.abs)), nil
	}
	if isBinary(head) {
		return tool.ErrorResult(fmt.Sprintf("%s looks like a binary file (%s, %d bytes); Read only shows text, images and PDFs. Inspect it with the Bash tool instead (e.g. `file`, `xxd | head`).", req.abs, sniffKind(head), info.Size())), nil
	}
	return readText(ctx, call.Env, req, info)
}

func parseReadInput(env *tool.Env, raw json.RawMessage) (readRequest, string) {
	var in readInput
	if err := tool.DecodeInput("Read", raw, &in); err != nil {
		return readRequest{}, err.Error()
	}
	if err := tool.RequireString("Read", "file_path", in.FilePath); err != nil {
		return readRequest{}, err.Error()
	}
	req := readRequest{given: in.FilePath, offset: 1}
	var msg string
	if req.abs, req.real, msg = resolveForTool(env, "Read", in.FilePath); msg != "" {
		return req, msg
	}
	if in.Offset != nil {
		n, msg := lineParam("offset", *in.Offset, 0)
		if msg != "" {
			return req, msg
		}
		req.offset, req.ranged = max(n, 1), true
	}
	if in.Limit != nil {
		n, msg := lineParam("limit", *in.Limit, 1)
		if msg != "" {
			return req, msg
		}
		req.limit, req.ranged = n, true
	}
	if in.Pages != nil {
		req.pages = *in.Pages
	}
	return req, ""
}

// lineParam validates a line count from JSON (which only has numbers).
func lineParam(name string, v float64, lo int) (int, string) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v != math.Trunc(v):
		return 0, fmt.Sprintf("invalid input for Read: %q must be a whole number, got %v", name, v)
	case v < float64(lo):
		return 0, fmt.Sprintf("invalid input for Read: %q must be at least %d, got %v", name, lo, v)
	case v > maxLineParam:
		return 0, fmt.Sprintf("invalid input for Read: %q is too large (%v); the maximum is %d", name, v, maxLineParam)
	}
	return int(v), ""
}

func readHead(path string, n int) ([]byte, error) {
	f, _, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:m], nil
}

// sniffKind names the content type from the bytes, not the extension: a
// screenshot saved as .txt is still an image.
func sniffKind(head []byte) string {
	ct := http.DetectContentType(head)
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return ct
}
