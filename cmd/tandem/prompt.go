package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	tokens "github.com/tandem-agent/tandem/internal/compact"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/provider"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

func newPromptCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Show what tandem tells the model",
	}
	cmd.AddCommand(newPromptShowCmd(g))
	return cmd
}

func newPromptShowCmd(g *globalFlags) *cobra.Command {
	var cwd, model, mode string
	var headless, asJSON, noMCP bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the system prompt and tool definitions a session's first request would carry, with token counts",
		Long: `Builds the first request of a native session in the folder exactly as the agent loop
does (system prompt by section, then every tool offered, with its description and schema),
without storing a session or calling the provider. The MCP servers a session would start
(a project's only once approved) are started and waited for as a session does, so their
tools and instructions are shown, then stopped; --no-mcp leaves them out. Token counts are
tandem's estimate (characters / 4, as its context accounting).`,
		Example: `  tandem prompt show
  tandem prompt show --model openai/gpt-5 --mode explore
  tandem prompt show --headless --json`,
		Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			dir, err := absCwd(cwd)
			if err != nil {
				return err
			}
			if mode != "" {
				if _, err := permission.ParseMode(mode); err != nil {
					return err
				}
			}
			v, err := a.PromptView(cmd.Context(), app.PromptViewRequest{Cwd: dir, Model: model, Mode: mode, NoAsker: headless, NoMCP: noMCP})
			if err != nil {
				return err
			}
			// Instructions files and skills come from the repository.
			out := termsafe.Writer(cmd.OutOrStdout())
			if asJSON {
				return writePromptJSON(out, v)
			}
			return writePromptText(out, v)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&cwd, "cwd", "", "the folder (default: the current one)")
	fl.StringVar(&model, "model", "", "provider/model (default: the folder's)")
	fl.StringVar(&mode, "mode", "", "permission mode (default: the folder's): "+permission.ModeList())
	fl.BoolVar(&headless, "headless", false, "as `tandem run -p` sends it: nobody to ask")
	fl.BoolVar(&asJSON, "json", false, "print JSON: system blocks, tools and token counts")
	fl.BoolVar(&noMCP, "no-mcp", false, "do not start the folder's MCP servers (their tools and instructions are left out)")
	return cmd
}

func promptTotals(v *app.PromptView) (system, tool int64) {
	for _, s := range v.Request.System {
		system += tokens.Tokens(s)
	}
	for _, t := range v.Request.Tools {
		tool += toolTokens(t)
	}
	return system, tool
}

func writePromptText(w io.Writer, v *app.PromptView) error {
	sys, tools := promptTotals(v)
	who := "someone can be asked"
	if v.NoAsker {
		who = "nobody to ask"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model %s (family %s), mode %s, %s\n", v.Model, v.Family, v.Mode, who)
	fmt.Fprintf(&b, "first request before the conversation: %d tokens (system prompt %d, %d tools %d); estimated as characters/4\n",
		sys+tools, sys, len(v.Request.Tools), tools)
	fmt.Fprintf(&b, "\n======== system prompt (%d tokens, %d blocks) ========\n", sys, len(v.Request.System))
	for _, s := range v.Sections {
		fmt.Fprintf(&b, "\n---- %s (block %d, %d tokens) ----\n%s\n", s.Name, s.Block+1, tokens.Tokens(s.Text), s.Text)
	}
	fmt.Fprintf(&b, "\n======== tools (%d tokens) ========\n", tools)
	for _, t := range v.Request.Tools {
		fmt.Fprintf(&b, "\n---- %s (%d tokens) ----\n%s\ninput schema: %s\n", t.Name,
			toolTokens(t), t.Description, compactJSON(t.InputSchema))
	}
	if len(v.MCP) > 0 {
		b.WriteString("\n======== MCP servers ========\n")
		for _, st := range v.MCP {
			line := fmt.Sprintf("%s: %s, %d tools", st.Name, st.State, st.Tools)
			if st.Error != "" {
				line += " (" + st.Error + ")"
			}
			b.WriteString(line + "\n")
		}
	}
	if len(v.Left) > 0 {
		b.WriteString("\n======== not offered ========\n")
		for _, l := range v.Left {
			fmt.Fprintf(&b, "%s: %s\n", l.Name, l.Reason)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// toolTokens estimates a tool definition as sent: providers get the schema
// as compact JSON, whatever whitespace its source has.
func toolTokens(t provider.ToolSpec) int64 {
	return tokens.ToolTokens(t.Name, t.Description, compactJSON(t.InputSchema))
}

func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// mcpState is one MCP server in `prompt show --json`.
type mcpState struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Tools int    `json:"tools"`
	Error string `json:"error,omitempty"`
}

func writePromptJSON(w io.Writer, v *app.PromptView) error {
	type section struct {
		Name   string `json:"name"`
		Block  int    `json:"block"`
		Tokens int64  `json:"tokens"`
		Text   string `json:"text"`
	}
	type toolOut struct {
		Name        string          `json:"name"`
		Tokens      int64           `json:"tokens"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	sys, tools := promptTotals(v)
	out := struct {
		Model        string         `json:"model"`
		Family       string         `json:"family"`
		Mode         string         `json:"mode"`
		NoAsker      bool           `json:"no_asker"`
		Tokens       int64          `json:"tokens"`
		SystemTokens int64          `json:"system_tokens"`
		ToolTokens   int64          `json:"tool_tokens"`
		System       []string       `json:"system"`
		Sections     []section      `json:"sections"`
		Tools        []toolOut      `json:"tools"`
		NotOffered   []app.LeftTool `json:"not_offered,omitempty"`
		MCPServers   []mcpState     `json:"mcp_servers,omitempty"`
	}{Model: v.Model, Family: string(v.Family), Mode: string(v.Mode), NoAsker: v.NoAsker,
		Tokens: sys + tools, SystemTokens: sys, ToolTokens: tools, System: v.Request.System, NotOffered: v.Left}
	for _, s := range v.Sections {
		out.Sections = append(out.Sections, section{s.Name, s.Block + 1, tokens.Tokens(s.Text), s.Text})
	}
	for _, t := range v.Request.Tools {
		out.Tools = append(out.Tools, toolOut{t.Name, toolTokens(t), t.Description, t.InputSchema})
	}
	for _, st := range v.MCP {
		out.MCPServers = append(out.MCPServers, mcpState{st.Name, string(st.State), st.Tools, st.Error})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
