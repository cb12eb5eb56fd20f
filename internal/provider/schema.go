package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ObjectSchema decodes a tool's JSON schema, defaulting to an empty object.
func ObjectSchema(s ToolSpec) (map[string]any, error) {
	schema := map[string]any{}
	if len(s.InputSchema) > 0 && string(s.InputSchema) != "null" {
		if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("tool %s: input schema is not a JSON object: %w", s.Name, err)
		}
	}
	if _, ok := schema["type"]; !ok {
		schema["type"] = "object"
	}
	if _, ok := schema["properties"]; !ok {
		schema["properties"] = map[string]any{}
	}
	return schema, nil
}

// ObjectSchemaJSON is ObjectSchema, encoded.
func ObjectSchemaJSON(s ToolSpec) (json.RawMessage, error) {
	schema, err := ObjectSchema(s)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("tool %s: encode schema: %w", s.Name, err)
	}
	return raw, nil
}

// ToolInput keeps the model's arguments as JSON. Arguments that are not
// valid JSON are kept as a JSON string, so the message stays storable and
// the tool's input decoding reports the problem back to the model.
func ToolInput(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	q, _ := json.Marshal(s)
	return q
}
