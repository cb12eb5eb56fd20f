package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/accounts"
	"github.com/tandem-agent/tandem/internal/app"
)

// cliActor names the command line in the audit log: whoever can run
// tandem against the database is its operator.
const cliActor = "cli"

func newUsersCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "users",
		Short: "Manage the users of `tandem serve` (add, list, disable, enable, token rotate, member)",
		Long: "The users of a team's `tandem serve`, kept in its database (TANDEM_DATABASE_URL or the \"database\" setting). " +
			"Until the first user exists, the server's own token is the admin's; from then on everyone signs in with their own " +
			"token (or OpenID Connect, serve.oidc). A token is printed once and stored only as a hash. See docs/accounts.md.",
	}
	var admin bool
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Add a user and print their personal API token (once)",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			u, tok, err := accounts.New(a.Store).Add(cmd.Context(), cliActor, args[0], admin)
			if errors.Is(err, accounts.ErrExists) {
				return fmt.Errorf("user %s exists already: pick another name, or `tandem users token rotate %s` for a new token", args[0], args[0])
			}
			if err != nil {
				return err
			}
			printToken(cmd.OutOrStdout(), u, tok)
			return nil
		}),
	}
	add.Flags().BoolVar(&admin, "admin", false, "make the user an admin (manages users and workspaces, sees every session)")
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the users",
		Args:  cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			users, err := accounts.New(a.Store).List(cmd.Context())
			if err != nil {
				return err
			}
			return printUsers(cmd.OutOrStdout(), users, asJSON)
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(add, list, userSwitch(g, "disable", true), userSwitch(g, "enable", false), newUsersTokenCmd(g), newUsersMemberCmd(g))
	return cmd
}

func userSwitch(g *globalFlags, verb string, disabled bool) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " NAME",
		Short: map[bool]string{true: "Disable a user: their token and sign-in stop working at once, open streams close", false: "Enable a disabled user again"}[disabled],
		Args:  cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			u, err := accounts.New(a.Store).SetDisabled(cmd.Context(), cliActor, args[0], disabled)
			if err != nil {
				return userErr(args[0], err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s %sd\n", u.Name, verb)
			return nil
		}),
	}
}

func newUsersTokenCmd(g *globalFlags) *cobra.Command {
	tok := &cobra.Command{Use: "token", Short: "Manage users' API tokens"}
	tok.AddCommand(&cobra.Command{
		Use:   "rotate NAME",
		Short: "Give a user a new token (printed once); the old one stops working at once",
		Args:  cobra.ExactArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			u, t, err := accounts.New(a.Store).Rotate(cmd.Context(), cliActor, args[0])
			if err != nil {
				return userErr(args[0], err)
			}
			printToken(cmd.OutOrStdout(), u, t)
			return nil
		}),
	})
	return tok
}

func newUsersMemberCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "member NAME DIR owner|editor|viewer|none",
		Short: "Set a user's role in the workspace at DIR (none: take them out)",
		Args:  cobra.ExactArgs(3),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			svc := accounts.New(a.Store)
			u, err := svc.Get(cmd.Context(), args[0])
			if err != nil {
				return userErr(args[0], err)
			}
			dir, err := absCwd(args[1])
			if err != nil {
				return err
			}
			ws, ok, err := a.Store.WorkspaceForPath(cmd.Context(), dir)
			if err != nil {
				return err
			}
			if !ok || ws.Path != dir {
				return fmt.Errorf("%s is not a registered workspace: register it first (tandem serve --workspace %s, or POST /api/workspaces as an admin)", dir, dir)
			}
			if args[2] == "none" {
				err = svc.RemoveMember(cmd.Context(), cliActor, ws.ID, u.ID)
			} else {
				err = svc.SetMember(cmd.Context(), cliActor, accounts.Member{WorkspaceID: ws.ID, UserID: u.ID, Role: args[2]})
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "user %s is %s of %s\n", u.Name, args[2], ws.Path)
			return nil
		}),
	}
}

func userErr(name string, err error) error {
	if errors.Is(err, accounts.ErrNotFound) {
		return fmt.Errorf("no user %s: see `tandem users list`", name)
	}
	return err
}

func printToken(w io.Writer, u accounts.User, tok string) {
	fmt.Fprintf(w, "user %s (%s)\ntoken (shown once, only its hash is kept):\n  %s\n", u.Name, u.ID, tok)
}

func printUsers(w io.Writer, users []accounts.User, asJSON bool) error {
	if asJSON {
		type userJSON struct {
			ID       string `json:"id"`
			Name     string `json:"name"`
			Email    string `json:"email,omitempty"`
			Admin    bool   `json:"admin"`
			Disabled bool   `json:"disabled"`
		}
		out := make([]userJSON, 0, len(users))
		for _, u := range users {
			out = append(out, userJSON{u.ID, u.Name, u.Email, u.Admin, u.Disabled})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if len(users) == 0 {
		fmt.Fprintln(w, "no users: `tandem serve`'s own token is the admin's (add one with `tandem users add NAME --admin`)")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tADMIN\tDISABLED\tEMAIL")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%t\t%t\t%s\n", u.Name, u.ID, u.Admin, u.Disabled, u.Email)
	}
	return tw.Flush()
}
