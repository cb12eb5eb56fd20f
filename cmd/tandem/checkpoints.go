package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/checkpoint"
)

func newCheckpointsCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use: "checkpoints ID", Short: "List a session's checkpoints: one per prompt, with the files its turn changed",
		Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			s, err := a.Manager.Find(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("session %s: %w (list them with `tandem sessions list --all`)", args[0], err)
			}
			cps, err := a.Checkpoints.List(cmd.Context(), s.ID)
			if err != nil {
				return err
			}
			sums := checkpoint.Summaries(cps, s.Cwd)
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(sums)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(tw, "N\tTIME\tPROMPT\tFILES")
			for _, c := range sums {
				var files []string
				for _, f := range c.Files {
					files = append(files, fileLabel(f))
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", c.Number, c.CreatedAt.Local().Format(time.DateTime), truncate(c.Prompt, 50), strings.Join(files, ", "))
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func fileLabel(f checkpoint.FileSummary) string {
	switch f.State {
	case "absent":
		return f.Path + " (new)"
	case "too_large":
		return f.Path + " (too large, not saved)"
	}
	return f.Path
}

func newRewindCmd(g *globalFlags) *cobra.Command {
	var to int
	var filesOnly, convOnly, force, asJSON bool
	var addDirs []string
	cmd := &cobra.Command{
		Use:   "rewind ID --to N",
		Short: "Go back to just before prompt N: its files and conversation as they were",
		Long: `Restores every file changed from prompt N on to its state just before prompt N
(deleted files come back, created files go) and truncates the conversation so
the next --resume continues from before prompt N. A file changed outside tandem
since is not overwritten without --force. A file outside the session's folders
(its working folder and --add-dir), or reached through a folder that became a
symbolic link, is left alone and reported. See docs/rewind.md.`,
		Args: cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			if to < 1 {
				return errors.New("--to N is required: the prompt to go back before (see `tandem sessions checkpoints ID`)")
			}
			s, err := a.Manager.Find(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("session %s: %w (list them with `tandem sessions list --all`)", args[0], err)
			}
			roots, err := absDirs(addDirs)
			if err != nil {
				return err
			}
			// No turn may run meanwhile, here or in another process (a
			// server's): its tool results would outlive the cut.
			release, err := a.Manager.Hold(cmd.Context(), s.ID)
			if err != nil {
				return fmt.Errorf("rewind: %w (wait for the turn to end, or stop it)", err)
			}
			defer release()
			out := cmd.OutOrStdout()
			opt := checkpoint.RewindOptions{FilesOnly: filesOnly, ConversationOnly: convOnly, Force: force, Roots: roots}
			if !asJSON {
				opt.Progress = func(p, action string) { fmt.Fprintf(out, "%s %s\n", action, checkpoint.RelPath(s.Cwd, p)) }
			}
			res, err := a.Checkpoints.Rewind(cmd.Context(), s.ID, to, opt)
			if err != nil {
				return err
			}
			sum := res.Summarize(s.Cwd)
			if asJSON {
				return json.NewEncoder(out).Encode(sum)
			}
			for _, p := range sum.Skipped {
				fmt.Fprintf(out, "not restored (too large to have been saved): %s\n", p)
			}
			for _, p := range sum.Outside {
				fmt.Fprintf(out, "left alone (outside the session's folders now, or reached through a symbolic link): %s\n", p)
			}
			fmt.Fprintf(out, "rewound %s to before prompt %d: %d files restored, %d removed, %d messages set aside\n",
				s.ID, to, len(sum.Restored), len(sum.Removed), sum.Messages)
			return nil
		}),
	}
	cmd.Flags().IntVar(&to, "to", 0, "the prompt number to go back before (1 = the first)")
	cmd.Flags().BoolVar(&filesOnly, "files-only", false, "restore the files, keep the conversation")
	cmd.Flags().BoolVar(&convOnly, "conversation-only", false, "truncate the conversation, keep the files")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite files changed outside tandem since the checkpoint")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().StringSliceVar(&addDirs, "add-dir", nil, "the session's other folders (its --add-dir): files there are restored too; files outside the session's folders are left alone")
	cmd.MarkFlagsMutuallyExclusive("files-only", "conversation-only")
	return cmd
}

// absDirs makes the --add-dir folders absolute.
func absDirs(dirs []string) ([]string, error) {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--add-dir %s: %w", d, err)
		}
		out = append(out, abs)
	}
	return out, nil
}
