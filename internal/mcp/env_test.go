package mcp

import (
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A stdio server starts without tandem's credentials unless its own env
// names them.
func TestStdioServerEnvHasNoSecrets(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-mcp-0123456789")
	t.Setenv("OPENAI_API_KEY", "sk-openai-mcp-0123456789")
	m := NewManager(Options{})
	c := ServerConfig{Command: "true", Env: map[string]string{"OPENAI_API_KEY": "given-on-purpose"}}
	tr, _, err := newTransport(c, t.TempDir(), m.baseEnv(), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := tr.(*sdk.CommandTransport).Command.Env
	if slices.Contains(env, "ANTHROPIC_API_KEY=sk-ant-mcp-0123456789") || slices.Contains(env, "OPENAI_API_KEY=sk-openai-mcp-0123456789") {
		t.Errorf("a credential reached the server: %v", env)
	}
	if !slices.Contains(env, "OPENAI_API_KEY=given-on-purpose") {
		t.Errorf("the server's own env was dropped")
	}
}
