package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/provider/catalog"
)

func newModelsCmd(g *globalFlags) *cobra.Command {
	var asJSON, refresh bool
	cmd := &cobra.Command{
		Use: "models", Short: "List known models with context window and prices (USD per million tokens)", Args: cobra.NoArgs,
		Long: "List known models with their status (active, legacy, deprecated or retired, with the date), context window " +
			"and prices (USD per million tokens). --refresh asks every provider that is configured or has a key for its " +
			"model list and keeps it in the data folder; models the embedded catalog does not know are then listed too, " +
			"with unknown prices, and stderr reports per provider what is new (live, not in the catalog), what is gone " +
			"(active in the catalog, not live) and what the catalog has no prices for.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, err := catalog.Load()
			if err != nil {
				return err
			}
			var refreshFailed bool
			if refresh {
				if refreshFailed, err = refreshModels(cmd, g); err != nil {
					return err
				}
			}
			paths, err := config.ResolvePaths(g.home, os.Getenv)
			if err != nil {
				return err
			}
			local, err := catalog.LoadRefreshed(filepath.Join(paths.DataDir, catalog.RefreshedFile))
			if err != nil {
				return err
			}
			ms := cat.Merge(local)
			now := time.Now()
			for i := range ms { // the status on the day, not as written
				ms[i].Status = ms[i].StatusAt(now)
			}
			if asJSON {
				if err := json.NewEncoder(cmd.OutOrStdout()).Encode(ms); err != nil {
					return err
				}
				return exitIf(refreshFailed)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "MODEL\tSTATUS\tCONTEXT\tMAX OUT\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE")
			for _, m := range ms {
				in, out, cr, cw := "?", "?", "?", "?"
				if m.Price != nil {
					in, out, cr, cw = money(m.Price.Input), money(m.Price.Output), money(m.Price.CacheRead), money(m.Price.CacheWrite)
				}
				status := m.StatusLabel(now)
				if status == "" {
					status = catalog.Active
				}
				fmt.Fprintf(tw, "%s/%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", m.Provider, m.ID, status, m.ContextWindow, m.MaxOutputTokens, in, out, cr, cw)
			}
			fmt.Fprintln(tw, "\nOther models work too (cost then shows as unknown): --model provider/model-id")
			if err := tw.Flush(); err != nil {
				return err
			}
			return exitIf(refreshFailed)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&refresh, "refresh", false, "update the local model list from the providers' model-list endpoints first")
	return cmd
}

// refreshModels updates the data folder's model list; a provider that
// fails is reported on stderr and keeps its previous list, and makes the
// command exit 1 after listing.
func refreshModels(cmd *cobra.Command, g *globalFlags) (failed bool, err error) {
	err = withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
		s, err := a.ResolveSettings(cmd.Context(), app.SettingsRequest{})
		if err != nil {
			return err
		}
		r, errs := a.RefreshModels(cmd.Context(), s)
		n := 0
		for _, ids := range r.Providers {
			n += len(ids)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "tandem: %d models from %d providers saved\n", n, len(r.Providers))
		for _, e := range errs {
			fmt.Fprintf(cmd.ErrOrStderr(), "tandem: refresh %v\n", e)
		}
		failed = len(errs) > 0
		printDrift(cmd.ErrOrStderr(), a.Catalog.Compare(r, time.Now()))
		return nil
	})(cmd, nil)
	return failed, err
}

func exitIf(failed bool) error {
	if failed {
		return exitError{code: 1}
	}
	return nil
}

func money(v float64) string { return fmt.Sprintf("$%.2f", v) }

// printDrift reports how the providers' live lists differ from the
// catalog: the sign that the binary's catalog needs an update.
func printDrift(w io.Writer, drift []catalog.Drift) {
	for _, d := range drift {
		if len(d.New)+len(d.Gone)+len(d.Unpriced) == 0 {
			fmt.Fprintf(w, "tandem: %s: live list matches the catalog\n", d.Provider)
			continue
		}
		for _, part := range []struct {
			what string
			ids  []string
		}{{"new (not in the catalog, prices unknown)", d.New}, {"gone (active in the catalog, not live)", d.Gone}, {"no price in the catalog", d.Unpriced}} {
			if len(part.ids) > 0 {
				fmt.Fprintf(w, "tandem: %s: %s: %s\n", d.Provider, part.what, strings.Join(part.ids, ", "))
			}
		}
	}
}
