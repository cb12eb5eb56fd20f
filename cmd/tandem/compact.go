package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/session"
)

// newSessionsCompactCmd is `tandem sessions compact ID [--focus TEXT]`: the
// same as sending "/compact TEXT" as the session's next prompt.
func newSessionsCompactCmd(g *globalFlags) *cobra.Command {
	var focus string
	cmd := &cobra.Command{
		Use: "compact ID", Short: "Summarise a session's conversation so far, so it continues from the summary",
		Long: "Compact replaces the conversation sent to the model by a summary plus the most recent messages. " +
			"Every message stays stored (sessions show and export still print them). Same as the prompt \"/compact [focus]\".",
		Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			ctx, stop := interruptContext(cmd.Context())
			defer stop()
			if _, err := a.Manager.Find(ctx, args[0]); err != nil {
				return fmt.Errorf("session %s: %w (list them with `tandem sessions list --all`)", args[0], err)
			}
			out := newPrinter("text", cmd.OutOrStdout(), cmd.ErrOrStderr(), false)
			live, err := a.Manager.Open(ctx, session.OpenRequest{ID: args[0], Sinks: []event.Sink{out}})
			if err != nil {
				return err
			}
			defer live.Close()
			res, err := live.Run(ctx, strings.TrimSpace("/compact "+focus), session.TurnOptions{})
			if err != nil {
				return err
			}
			out.finish(res)
			if res.IsError {
				return exitError{code: 1}
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&focus, "focus", "", "what the summary should focus on (e.g. \"the API changes\")")
	return cmd
}

// printContext prints the last measured fill of the context window.
func printContext(w io.Writer, s session.Summary) {
	raw := s.Meta["context"]
	if raw == "" {
		return
	}
	var c struct {
		Tokens int64 `json:"tokens"`
		Window int64 `json:"window"`
	}
	if json.Unmarshal([]byte(raw), &c) != nil || c.Tokens <= 0 {
		return
	}
	if c.Window > 0 {
		fmt.Fprintf(w, "context %d of %d tokens (%d%%)\n", c.Tokens, c.Window, c.Tokens*100/c.Window)
		return
	}
	fmt.Fprintf(w, "context %d tokens\n", c.Tokens)
}

// printBoundary shows a compaction boundary in a transcript.
func printBoundary(w io.Writer, m message.Message) {
	c := m.Compaction
	if c == nil {
		return
	}
	fmt.Fprintf(w, "── compacted (%s): about %d tokens → %d ──\n", c.Trigger, c.TokensBefore, c.TokensAfter)
	if c.Focus != "" {
		fmt.Fprintf(w, "focus: %s\n", c.Focus)
	}
	fmt.Fprintf(w, "summary: %s\n\n", truncate(strings.TrimSpace(m.PlainText()), 2000))
}
