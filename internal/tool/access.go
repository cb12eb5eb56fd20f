package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Access is one path a call touches.
type Access struct {
	// Path is as the input gives it: absolute, or relative to the session's
	// working folder ("." is the working folder itself). "" means the input
	// names no path; the tool itself reports that.
	Path string
	// Write is true when the call may create, change or remove the path.
	Write bool
	// Folder is true when the path is a folder the call searches (Glob,
	// Grep): a rule approving it covers the folder, not its parent.
	Folder bool
}

// FileAccessor is implemented by tools whose calls touch files their input
// names. It is the one declaration of which paths a call reads or writes:
// the permission engine judges those paths (workspace boundary, protected
// and sensitive paths, Read(...) and Edit(...) rules) and the checkpoint
// recorder saves what a write will change, so no guard keeps a table of
// tool names of its own. A tool that touches files and does not declare
// them is judged as an unknown tool.
type FileAccessor interface {
	// FileAccess returns every path input touches. An input it cannot
	// read is an error (the guards then treat the call as not understood).
	FileAccess(input json.RawMessage) ([]Access, error)
}

// Unwrapper is implemented by tools that wrap another (redaction,
// checkpoints), so that what the wrapped tool declares is still found.
type Unwrapper interface {
	Unwrap() Tool
}

// AccessorOf returns what t, or a tool it wraps, declares of the files its
// calls touch.
func AccessorOf(t Tool) (FileAccessor, bool) {
	return Unwrapped[FileAccessor](t)
}

// AccessFunc adapts a function to FileAccessor.
type AccessFunc func(input json.RawMessage) ([]Access, error)

// FileAccess calls f.
func (f AccessFunc) FileAccess(input json.RawMessage) ([]Access, error) { return f(input) }

// PathField returns a FileAccessor for tools whose input names one path in
// the string field key (file_path, notebook_path, path); write says whether
// the call may change it.
func PathField(key string, write bool) FileAccessor {
	return AccessFunc(func(input json.RawMessage) ([]Access, error) {
		p, err := StringField(input, key)
		if err != nil {
			return nil, err
		}
		return []Access{{Path: p, Write: write}}, nil
	})
}

// StringField reads one optional string field of a JSON object input: ""
// when it is missing or null, an error when the input is not an object or
// the field is not a string. The key matches in any case, as
// encoding/json (which decodes tandem's tools' inputs) matches it; an
// object holding the key in two spellings is an error, since decoders
// disagree on which one wins (encoding/json takes the last in any case,
// JavaScript the exact one), and the path judged must be the path used.
func StringField(input json.RawMessage, key string) (string, error) {
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return "", nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", errors.New("the input is not a JSON object")
	}
	var found *json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("read the input: %w", err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", fmt.Errorf("read the input: %w", err)
		}
		if !strings.EqualFold(k, key) {
			continue
		}
		if found != nil {
			return "", fmt.Errorf("the input names %q more than once", key)
		}
		found = &v
	}
	if found == nil || string(*found) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(*found, &s); err != nil {
		return "", fmt.Errorf("%q is not a string", key)
	}
	return s, nil
}

// WritePreviewer is implemented by FileAccessors that can say, without
// touching the disk, what a call would change in a file it declares it
// writes: the unified diff for the file at path (absolute) whose current
// bytes are current ("" for a file that does not exist yet). The
// permission question shows it, so it must be what the call applies; an
// error (the call would fail) shows none.
type WritePreviewer interface {
	PreviewWrite(input json.RawMessage, path, current string) (string, error)
}
