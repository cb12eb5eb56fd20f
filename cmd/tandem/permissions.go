package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

func newPermissionsCmd(g *globalFlags) *cobra.Command {
	var cwd, mode string
	var allowed, disallowed []string
	cmd := &cobra.Command{
		Use:   "permissions [why COMMAND | why Tool(path)]",
		Short: "List the permission rules in force in a folder, or say how a command or call would be judged and by which rule",
		Long: `Without arguments: the mode and every rule in force (deny, ask, allow) with the file it
came from. "why" judges a shell command (or Edit(path), Read(path), WebFetch(url), ...)
as a session there would, without running it or asking anyone; hooks are not run.`,
		Example: `  tandem permissions
  tandem permissions why git push origin main
  tandem permissions why 'Edit(src/main.go)' --permission-mode explore`,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			if len(args) > 0 && args[0] != "why" {
				return fmt.Errorf("unknown argument %q: use `tandem permissions` or `tandem permissions why COMMAND`", args[0])
			}
			if len(args) == 1 {
				return fmt.Errorf("why needs what to judge, e.g. `tandem permissions why git push origin main`")
			}
			dir, err := absCwd(cwd)
			if err != nil {
				return err
			}
			rules, err := flagRules(&runFlags{allowed: allowed, disallowed: disallowed})
			if err != nil {
				return err
			}
			eng, err := a.PermissionsFor(cmd.Context(), dir, mode, rules)
			if err != nil {
				return err
			}
			out := termsafe.Writer(cmd.OutOrStdout()) // rules and commands come from files and arguments
			if len(args) == 0 {
				_, err = fmt.Fprintln(out, permission.DescribeRules(eng.Mode(), eng.Rules()))
				return err
			}
			what := strings.Join(args[1:], " ")
			_, err = fmt.Fprintln(out, eng.Explain(permission.CallFromText(what)).Describe(what))
			return err
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&cwd, "cwd", "", "the folder (default: the current one)")
	fl.StringVar(&mode, "permission-mode", "", "judge in this mode instead of the folder's: "+permission.ModeList())
	fl.StringSliceVar(&allowed, "allowedTools", nil, "rules to add as `tandem run --allowedTools` would")
	fl.StringSliceVar(&disallowed, "disallowedTools", nil, "rules to add as `tandem run --disallowedTools` would")
	return cmd
}
