package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/provider/catalog"
)

func newModelsCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "models", Short: "List known models with context window and prices (USD per million tokens)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := catalog.Load()
			if err != nil {
				return err
			}
			ms := cat.Models()
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(ms)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "MODEL\tCONTEXT\tMAX OUT\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE")
			for _, m := range ms {
				in, out, cr, cw := "?", "?", "?", "?"
				if m.Price != nil {
					in, out, cr, cw = money(m.Price.Input), money(m.Price.Output), money(m.Price.CacheRead), money(m.Price.CacheWrite)
				}
				fmt.Fprintf(tw, "%s/%s\t%d\t%d\t%s\t%s\t%s\t%s\n", m.Provider, m.ID, m.ContextWindow, m.MaxOutputTokens, in, out, cr, cw)
			}
			fmt.Fprintln(tw, "\nOther models work too (cost then shows as unknown): --model provider/model-id")
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func money(v float64) string { return fmt.Sprintf("$%.2f", v) }
