package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/runtimes"
	"github.com/tandem-agent/tandem/internal/session"
	"github.com/tandem-agent/tandem/internal/termsafe"
	"github.com/tandem-agent/tandem/internal/tool"
)

func newSessionsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "List, show, export, delete and rewind stored sessions"}
	var cwd string
	var all, asJSON bool
	var limit int
	list := &cobra.Command{
		Use: "list", Short: "List sessions (this folder's unless --all)",
		Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			opts := session.ListOptions{Limit: limit}
			if !all {
				dir, err := absCwd(cwd)
				if err != nil {
					return err
				}
				opts.Cwd = dir
			}
			ss, err := a.Manager.List(cmd.Context(), opts)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(sessionsJSON(ss))
			}
			printSessionList(cmd.OutOrStdout(), ss, termsafe.LineFor(cmd.OutOrStdout()))
			return nil
		}),
	}
	list.Flags().StringVar(&cwd, "cwd", "", "folder whose sessions to list (default: the current folder)")
	list.Flags().BoolVar(&all, "all", false, "list sessions of every folder")
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	list.Flags().IntVar(&limit, "limit", 50, "at most this many (0: all)")

	show := &cobra.Command{
		Use: "show ID", Short: "Show a session's conversation", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			s, msgs, err := loadSession(cmd, a, args[0])
			if err != nil {
				return err
			}
			printTranscript(cmd, s, msgs)
			return nil
		}),
	}
	var exportFormat string
	export := &cobra.Command{
		Use: "export ID", Short: "Print a session and its messages as JSON, or as Markdown for sharing (--format markdown)", Args: cobra.ExactArgs(1),
		Example: "  tandem sessions export ses_... > session.json\n  tandem sessions export --format markdown ses_... > session.md",
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			if !slices.Contains(exportFormats, exportFormat) {
				return fmt.Errorf("--format %q: use %s", exportFormat, strings.Join(exportFormats, " or "))
			}
			s, msgs, err := loadSession(cmd, a, args[0])
			if err != nil {
				return err
			}
			if exportFormat == "markdown" {
				return writeMarkdown(cmd.OutOrStdout(), s, msgs)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"session": sessionJSON(s), "messages": msgs})
		}),
	}
	export.Flags().StringVar(&exportFormat, "format", "json", "json (everything, for programs) or markdown (the conversation, for people)")
	del := &cobra.Command{
		Use: "delete ID", Short: "Delete a session and its messages", Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			s, err := a.Manager.Find(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("session %s: %w", args[0], err)
			}
			if err := a.Checkpoints.DeleteSession(cmd.Context(), s.ID); err != nil {
				return err
			}
			if err := tool.RemoveSpill(a.Paths.DataDir, s.ID); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "tandem: %v\n", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "deleted %s\n", s.ID)
			return nil
		}),
	}
	cmd.AddCommand(list, show, export, del, newSessionsCompactCmd(g), newCheckpointsCmd(g), newRewindCmd(g), newSessionsMigrateCmd(g))
	return cmd
}

func loadSession(cmd *cobra.Command, a *app.App, id string) (session.Summary, []message.Message, error) {
	s, err := a.Manager.Find(cmd.Context(), id)
	if err != nil {
		return s, nil, fmt.Errorf("session %s: %w (list them with `tandem sessions list --all`)", id, err)
	}
	msgs, err := a.Manager.Messages(cmd.Context(), s.ID)
	return s, msgs, err
}

// printSessionList prints the sessions table; line makes each field safe
// for a terminal (a title is the user's prompt, or what a client set).
func printSessionList(w io.Writer, ss []session.Summary, line func(string) string) {
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tMODEL\tMSGS\tCOST\tTITLE")
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", line(s.ID), s.UpdatedAt.Local().Format(time.DateTime), line(s.Model), s.MessageCount,
			costString(s.CostUSD), line(truncate(s.Title, 60)))
	}
	tw.Flush()
}

func printTranscript(cmd *cobra.Command, s session.Summary, msgs []message.Message) {
	out := cmd.OutOrStdout()
	w := termsafe.Writer(out)
	line := termsafe.LineFor(out)
	fmt.Fprintf(w, "session %s  %s\nfolder  %s\nmodel   %s (%s runtime)\ntokens  %d in, %d out, %d cache read, %d cache write; cost %s\n\n",
		s.ID, line(s.Title), line(s.Cwd), line(s.Model), firstNonEmpty(s.Runtime, string(runtimes.Native)), s.Usage.InputTokens, s.Usage.OutputTokens,
		s.Usage.CacheReadTokens, s.Usage.CacheCreationTokens, costString(s.CostUSD))
	printContext(w, s)
	for _, m := range msgs {
		if m.Kind == message.KindCompaction {
			printBoundary(w, m)
			continue
		}
		for _, b := range m.Content {
			switch b.Type {
			case message.Text:
				fmt.Fprintf(w, "%s: %s\n\n", m.Role, b.Text)
			case message.Thinking:
				fmt.Fprintf(w, "%s (thinking): %s\n\n", m.Role, truncate(b.Text, 400))
			case message.ToolUse:
				fmt.Fprintf(w, "→ %s %s\n", b.Name, compact(b.Input, 300))
			case message.ToolResult:
				text := ""
				for _, c := range b.Content {
					text += c.Text
				}
				mark := "←"
				if b.IsError {
					mark = "← error:"
				}
				fmt.Fprintf(w, "%s %s\n\n", mark, truncate(strings.TrimSpace(text), 500))
			case message.Image:
				fmt.Fprintf(w, "%s: [image %s]\n", m.Role, b.MediaType)
			}
		}
	}
}

func costString(c *float64) string {
	if c == nil {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", *c)
}

func sessionJSON(s session.Summary) map[string]any {
	return map[string]any{"id": s.ID, "cwd": s.Cwd, "title": s.Title, "model": s.Model, "runtime": s.Runtime,
		"mode": s.Mode, "created_at": s.CreatedAt, "updated_at": s.UpdatedAt, "usage": s.Usage,
		"cost_usd": s.CostUSD, "message_count": s.MessageCount, "meta": s.Meta}
}

func sessionsJSON(ss []session.Summary) []map[string]any {
	out := make([]map[string]any, 0, len(ss))
	for _, s := range ss {
		out = append(out, sessionJSON(s))
	}
	return out
}
