package scripted

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestContextLimitAnswersEachServersOverflowError(t *testing.T) {
	big := strings.Repeat("word ", 2000) // ~10 KB, ~2500 tokens
	cases := map[string]string{
		"":           "maximum context length is 1000 tokens. However, your messages resulted in",
		"vllm":       "in the messages, 1024 in the completion",
		"deepseek":   "in the messages, 1024 in the completion",
		"llamacpp":   "exceeds the available context size (1000 tokens)",
		"lmstudio":   "loaded with context length of only 1000 tokens",
		"ollama":     "prompt too long; exceeded max context length by",
		"openrouter": "This endpoint's maximum context length is 1000 tokens",
	}
	for dialect, want := range cases {
		t.Run("openai/"+dialect, func(t *testing.T) {
			srv, url := startServer(t, Script{Steps: []Step{TextStep("ok")}, ContextLimit: 1000, OverflowDialect: dialect})
			body := openAIBody(false, map[string]any{"role": "user", "content": big})
			body["max_tokens"] = 1024
			resp := post(t, url+"/v1/chat/completions", body)
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || !strings.Contains(string(data), want) {
				t.Fatalf("status %d body %s", resp.StatusCode, data)
			}
			if r := srv.Requests(); len(r) != 1 || !r[0].Overflow {
				t.Errorf("not recorded as an overflow: %+v", r)
			}
			// A small request is answered.
			resp = post(t, url+"/v1/chat/completions", openAIBody(false))
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("small request: %d", resp.StatusCode)
			}
		})
	}
	t.Run("anthropic", func(t *testing.T) {
		_, url := startServer(t, Script{Steps: []Step{TextStep("ok")}, ContextLimit: 1000})
		resp := post(t, url+"/v1/messages", anthropicBody(false, map[string]any{"role": "user", "content": big}))
		var e struct {
			Error struct{ Type, Message string }
		}
		_ = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != 400 || e.Error.Type != "invalid_request_error" || !strings.HasPrefix(e.Error.Message, "prompt is too long: ") || !strings.HasSuffix(e.Error.Message, " tokens > 1000 maximum") {
			t.Fatalf("status %d error %+v", resp.StatusCode, e)
		}
	})
	if _, err := ParseScript([]byte(`{"steps":[],"overflow_dialect":"nope"}`)); err == nil || !strings.Contains(err.Error(), "overflow_dialect") {
		t.Errorf("unknown dialect: %v", err)
	}
}

func TestStepMarkersSurviveASummary(t *testing.T) {
	script := Script{StepMarkers: true, Steps: []Step{
		ToolStep(Call("Read", nil)), ToolStep(Call("Read", nil)), TextStep("third"),
	}}
	srv, url := startServer(t, script)
	// Step 1 is answered with a marked id.
	first := anthropicBody(false, map[string]any{"role": "user", "content": "go"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_x", "name": "Read", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_x", "content": "r"}}})
	resp := post(t, url+"/v1/messages", first)
	var m struct {
		Content []struct{ ID string }
	}
	_ = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if len(m.Content) == 0 || !strings.HasPrefix(m.Content[0].ID, "toolu_01st0001_") {
		t.Fatalf("marked id: %+v", m)
	}
	// A summary then only that call: still step 2.
	summarised := anthropicBody(false, map[string]any{"role": "user", "content": "summary of before"},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": m.Content[0].ID, "name": "Read", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": m.Content[0].ID, "content": "r"}}})
	resp = post(t, url+"/v1/messages", summarised)
	resp.Body.Close()
	if r := srv.Requests(); r[len(r)-1].Step != 2 {
		t.Fatalf("step after a summary: %d", r[len(r)-1].Step)
	}
}
