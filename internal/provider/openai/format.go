package openai

import (
	"encoding/json"
	"errors"
)

// outputFormat is a --json-schema sent as response_format json_schema.
type outputFormat struct {
	schema map[string]any
	strict bool
}

// newOutputFormat decodes the schema; strict mode only when the schema
// already obeys its rules, as a strict request with any other schema is
// refused outright. A schema whose root is not an object, which
// response_format does not take, is left to the prompt (nil).
func newOutputFormat(raw json.RawMessage) (*outputFormat, error) {
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, errors.New("--json-schema: response_format needs a JSON object schema")
	}
	if schema["type"] != "object" {
		return nil, nil
	}
	return &outputFormat{schema: schema, strict: strictSchema(schema)}, nil
}

// strictKeywords are the keywords OpenAI's strict mode accepts.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "description": true, "title": true,
	"anyOf": true, "$defs": true, "definitions": true, "$ref": true, "$schema": true, "$id": true,
	"pattern": true, "format": true, "multipleOf": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "minItems": true, "maxItems": true,
}

// strictSchema reports whether s satisfies strict mode: every object
// closed (additionalProperties false) with all its properties required,
// and only keywords strict mode knows.
func strictSchema(s map[string]any) bool {
	for k := range s {
		if !strictKeywords[k] {
			return false
		}
	}
	if props, ok := s["properties"].(map[string]any); ok || s["type"] == "object" {
		if s["additionalProperties"] != false {
			return false
		}
		required := map[string]bool{}
		list, _ := s["required"].([]any)
		for _, r := range list {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
		for name, p := range props {
			sub, ok := p.(map[string]any)
			if !required[name] || !ok || !strictSchema(sub) {
				return false
			}
		}
	}
	if items, ok := s["items"]; ok {
		sub, ok := items.(map[string]any)
		if !ok || !strictSchema(sub) {
			return false
		}
	}
	for _, key := range []string{"$defs", "definitions"} {
		defs, _ := s[key].(map[string]any)
		for _, d := range defs {
			sub, ok := d.(map[string]any)
			if !ok || !strictSchema(sub) {
				return false
			}
		}
	}
	if list, ok := s["anyOf"]; ok {
		alts, ok := list.([]any)
		if !ok {
			return false
		}
		for _, a := range alts {
			sub, ok := a.(map[string]any)
			if !ok || !strictSchema(sub) {
				return false
			}
		}
	}
	return true
}
