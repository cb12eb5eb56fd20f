package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DecodeInput unmarshals a model's tool input into v and turns decoding
// failures into messages a model can act on ("field \"offset\" must be a
// number, got string"). Unknown fields are tolerated: models add harmless
// extras, and refusing them only burns a step.
func DecodeInput(toolName string, raw json.RawMessage, v any) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		return fmt.Errorf("invalid input for %s: expected a JSON object with the tool's parameters, got %s", toolName, firstWord(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "(top level)"
			}
			return fmt.Errorf("invalid input for %s: field %q must be %s, got %s", toolName, field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return fmt.Errorf("invalid input for %s: %v", toolName, err)
	}
	return nil
}

// RequireString reports a missing or empty required string parameter.
func RequireString(toolName, field, value string) error {
	if strings.TrimSpace(value) == "" {
		return fmt.Errorf("invalid input for %s: the required parameter %q is missing or empty", toolName, field)
	}
	if strings.IndexByte(value, 0) >= 0 {
		return fmt.Errorf("invalid input for %s: parameter %q contains a NUL byte", toolName, field)
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return goKind
}

func firstWord(b []byte) string {
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	}
	return "a " + string(b[:min(len(b), 16)])
}
