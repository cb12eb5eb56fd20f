package gemini

import (
	"encoding/json"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
)

type geminiPart map[string]any

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

// geminiBody is the streamGenerateContent request for req.
func geminiBody(name string, req provider.Request) map[string]any {
	body := map[string]any{"contents": geminiContents(name, req.Messages)}
	if len(req.System) > 0 {
		body["systemInstruction"] = map[string]any{"parts": []geminiPart{{"text": strings.Join(req.System, "\n\n")}}}
	}
	gen := map[string]any{}
	if req.MaxTokens > 0 {
		gen["maxOutputTokens"] = req.MaxTokens
	}
	if geminiThinks(req.Model) {
		tc := map[string]any{"includeThoughts": true}
		if req.ThinkingBudget > 0 {
			tc["thinkingBudget"] = req.ThinkingBudget
		}
		gen["thinkingConfig"] = tc
	}
	if len(req.OutputSchema) > 0 && len(req.Tools) == 0 {
		// --json-schema natively, as JSON Schema itself (not the OpenAPI
		// subset tools use). Only on calls without tools: Gemini 2.5
		// refuses a JSON response type beside function declarations.
		gen["responseMimeType"] = "application/json"
		gen["responseJsonSchema"] = req.OutputSchema
	}
	if len(gen) > 0 {
		body["generationConfig"] = gen
	}
	if len(req.Tools) > 0 {
		var decls []map[string]any
		for _, t := range req.Tools {
			d := map[string]any{"name": t.Name, "description": t.Description}
			if s := geminiSchema(t.InputSchema); s != nil {
				d["parameters"] = s
			}
			decls = append(decls, d)
		}
		body["tools"] = []map[string]any{{"functionDeclarations": decls}}
		body["toolConfig"] = map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO"}}
	}
	return body
}

// geminiThinks reports models that think (and stream thought summaries
// when asked).
func geminiThinks(model string) bool {
	m := strings.ToLower(model)
	return strings.Contains(m, "gemini-2.5") || strings.Contains(m, "gemini-3")
}

// geminiContents turns the conversation into contents. Tool results
// answer calls by name (and id, which newer models send); a function call
// keeps the thought signature the model attached to it, which Gemini 3
// requires back.
func geminiContents(name string, msgs []message.Message) []geminiContent {
	names := map[string]string{} // tool-use id -> name
	var out []geminiContent
	for _, m := range msgs {
		c := geminiContent{Role: "user"}
		if m.Role == message.Assistant {
			c.Role = "model"
		}
		for _, b := range m.Content {
			if p := geminiPartOf(name, b, names); p != nil {
				c.Parts = append(c.Parts, p)
			}
			if b.Type == message.ToolResult {
				for _, img := range b.Content {
					if img.Type == message.Image {
						c.Parts = append(c.Parts, geminiImage(img))
					}
				}
			}
		}
		if len(c.Parts) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == c.Role {
			out[n-1].Parts = append(out[n-1].Parts, c.Parts...)
			continue
		}
		out = append(out, c)
	}
	return out
}

func geminiPartOf(name string, b message.Block, names map[string]string) geminiPart {
	sig := func(p geminiPart) geminiPart {
		if b.Signature != "" && b.Provider == name {
			p["thoughtSignature"] = b.Signature
		}
		return p
	}
	switch b.Type {
	case message.Text:
		if b.Text == "" && (b.Signature == "" || b.Provider != name) {
			return nil
		}
		return sig(geminiPart{"text": b.Text})
	case message.Thinking:
		// Thoughts go back only to Gemini, and only with their signature:
		// the summary text alone carries nothing the model needs.
		if b.Provider != name || b.Signature == "" {
			return nil
		}
		return sig(geminiPart{"text": b.Text, "thought": true})
	case message.ToolUse:
		names[b.ID] = b.Name
		args := json.RawMessage(b.Input)
		if len(args) == 0 || !json.Valid(args) || args[0] != '{' {
			args = json.RawMessage(`{}`)
		}
		fc := map[string]any{"name": b.Name, "args": args}
		if !strings.HasPrefix(b.ID, geminiGeneratedID) {
			fc["id"] = b.ID
		}
		return sig(geminiPart{"functionCall": fc})
	case message.ToolResult:
		text := ""
		for _, c := range b.Content {
			if c.Type == message.Text {
				text += c.Text
			}
		}
		key := "result"
		if b.IsError {
			key = "error"
		}
		fr := map[string]any{"name": names[b.ToolUseID], "response": map[string]any{key: text}}
		if !strings.HasPrefix(b.ToolUseID, geminiGeneratedID) {
			fr["id"] = b.ToolUseID
		}
		return geminiPart{"functionResponse": fr}
	case message.Image:
		return geminiImage(b)
	}
	return nil
}

func geminiImage(b message.Block) geminiPart {
	return geminiPart{"inlineData": map[string]any{"mimeType": b.MediaType, "data": b.ImageData}}
}

// geminiSchema converts a tool's JSON Schema to Gemini's OpenAPI subset:
// upper-case types, and only the keywords Gemini takes.
func geminiSchema(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	out := convertSchema(s)
	if props, _ := out["properties"].(map[string]any); out["type"] == "OBJECT" && len(props) == 0 {
		return nil // Gemini rejects an object with no properties
	}
	return out
}

func convertSchema(s map[string]any) map[string]any {
	out := map[string]any{}
	switch t := s["type"].(type) {
	case string:
		out["type"] = strings.ToUpper(t)
	case []any: // ["string", "null"]
		for _, x := range t {
			if str, _ := x.(string); str == "null" {
				out["nullable"] = true
			} else if str != "" {
				out["type"] = strings.ToUpper(str)
			}
		}
	}
	for _, k := range []string{"description", "enum", "format", "required", "nullable", "minimum", "maximum", "minItems", "maxItems"} {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		cp := map[string]any{}
		for k, v := range props {
			if m, ok := v.(map[string]any); ok {
				cp[k] = convertSchema(m)
			}
		}
		out["properties"] = cp
		if out["type"] == nil {
			out["type"] = "OBJECT"
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		out["items"] = convertSchema(items)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		var list []any
		for _, x := range anyOf {
			if m, ok := x.(map[string]any); ok {
				list = append(list, convertSchema(m))
			}
		}
		out["anyOf"] = list
	}
	if out["type"] == "ARRAY" && out["items"] == nil {
		out["items"] = map[string]any{"type": "STRING"}
	}
	return out
}
