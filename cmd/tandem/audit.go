package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/app"
)

func newAuditCmd(g *globalFlags) *cobra.Command {
	var user string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "List who did what on `tandem serve` (newest first)",
		Long: "The audit log of a team's `tandem serve`: sessions created, prompts sent, permission questions answered and how, " +
			"rewinds, trust and user changes. See docs/accounts.md.",
		Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			svc := accounts.New(a.Store)
			q := accounts.AuditQuery{Limit: limit}
			if user != "" {
				u, err := svc.Get(cmd.Context(), user)
				if err != nil {
					return userErr(user, err)
				}
				q.Actor = u.ID
			}
			list, err := svc.AuditLog(cmd.Context(), q)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				for _, e := range list {
					if err := enc.Encode(auditJSON(e)); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tACTOR\tACTION\tTARGET\tDETAIL")
			for _, e := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.Format(time.RFC3339), e.Actor, e.Action, e.Target, e.Detail)
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().StringVar(&user, "user", "", "only this user's entries (name or id)")
	cmd.Flags().IntVar(&limit, "limit", 100, "at most this many entries")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per line")
	return cmd
}

func auditJSON(e accounts.AuditEntry) map[string]any {
	return map[string]any{"id": e.ID, "at": e.At, "actor": e.Actor, "action": e.Action, "target": e.Target, "detail": e.Detail}
}
