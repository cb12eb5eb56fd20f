package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/config"
	"github.com/tandem-agent/tandem/internal/store/storecopy"
)

// newSessionsMigrateCmd is `tandem sessions migrate --to URL`: the SQLite
// file's sessions copied into PostgreSQL (docs/postgres.md).
func newSessionsMigrateCmd(g *globalFlags) *cobra.Command {
	var to, from string
	cmd := &cobra.Command{
		Use:   "migrate --to postgres://...",
		Short: "Copy every session, workspace and grant from the SQLite file into PostgreSQL (safe to re-run)",
		Long: "Copy every session (messages, meta, checkpoints and their file contents, rewound messages), the " +
			"registered workspaces and the saved grants from tandem's SQLite file into a PostgreSQL database. " +
			"Re-running it copies again what changed in the SQLite file; a session used on PostgreSQL since " +
			"the last copy is left as it is and named. The SQLite file is not changed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				return fmt.Errorf("give the PostgreSQL database with --to postgres://user:password@host:5432/database")
			}
			paths, err := config.ResolvePaths(g.home, os.Getenv)
			if err != nil {
				return err
			}
			if from == "" {
				from = paths.DBFile()
			}
			rep, err := storecopy.Migrate(cmd.Context(), from, paths.DataDir, to)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "copied %d new session(s), %d again (%d messages, %d checkpoint contents); %d workspace(s), %d grant(s) added\n",
				rep.Sessions, rep.Updated, rep.Messages, rep.Blobs, rep.Workspaces, rep.Grants)
			fmt.Fprintf(w, "accounts: %d user(s), %d workspace role(s), %d session owner(s), %d audit entries added\n",
				rep.Users, rep.Members, rep.Owners, rep.Audit)
			if len(rep.UserConflicts) > 0 {
				fmt.Fprintf(w, "not copied (PostgreSQL gives the name or sign-in to another user; rename one and run again): %s\n", strings.Join(rep.UserConflicts, ", "))
			}
			if len(rep.Skipped) > 0 {
				fmt.Fprintf(w, "left as they are (used on PostgreSQL since an earlier copy): %s\n", strings.Join(rep.Skipped, ", "))
			}
			if len(rep.Missing) > 0 {
				fmt.Fprintf(w, "%d checkpoint content(s) were missing from %s: those files cannot be restored by a rewind\n", len(rep.Missing), paths.DataDir)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the PostgreSQL database URL to copy into")
	cmd.Flags().StringVar(&from, "from", "", "the SQLite file to copy from (default: the data folder's tandem.db)")
	return cmd
}
