package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/scripted"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// OpenAI-compatible servers whose error bodies are not OpenAI's {"error":
// {...}} still get their own message through (it is what tells a context
// overflow apart): vLLM's {"object":"error","message":...}, LM Studio's
// {"error":"..."}, llama.cpp's and Ollama's objects.
func TestCompatibleServerErrorMessages(t *testing.T) {
	for dialect, want := range map[string]string{
		"vllm":     "maximum context length is 10 tokens",
		"lmstudio": "loaded with context length of only 10 tokens",
		"llamacpp": "exceeds the available context size (10 tokens)",
		"ollama":   "prompt too long; exceeded max context length by",
		"deepseek": "maximum context length is 10 tokens",
	} {
		t.Run(dialect, func(t *testing.T) {
			_, url := testfiles.Scripted(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("ok")}, ContextLimit: 10, OverflowDialect: dialect})
			p, err := New(provider.Config{Name: "local", Kind: "openai-compatible", BaseURL: url + "/v1", APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Stream(context.Background(), provider.Request{Model: "m", Messages: []message.Message{{Role: message.User,
				Content: []message.Block{message.TextBlock(strings.Repeat("x", 400))}}}}, func(provider.Delta) {})
			pe, ok := provider.AsError(err)
			if !ok || pe.Status != 400 || !strings.Contains(pe.Message, want) {
				t.Fatalf("error %v (status %d, message %q)", err, pe.Status, pe.Message)
			}
		})
	}
}
