// Command tandem is the CLI: it only parses flags and wires the internal
// packages together (internal/app does the wiring shared with the server).
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

// exitError carries an exit status without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.LoopbackArg {
		// The sandbox's loopback forward (internal/sandbox.Loopback), run
		// inside it before the claude CLI when its provider is on loopback.
		os.Exit(sandbox.Loopback(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		// The sandbox's launcher (internal/sandbox.Exec), started by tandem
		// itself for each confined command.
		os.Exit(sandbox.Exec(os.Args[2:]))
	}
	handOverSecrets(os.Args, os.Stderr)
	os.Exit(run())
}

func run() int {
	defer startProfile()()
	root := newRootCmd()
	if err := unknownSubcommand(root, os.Args[1:]); err != nil {
		fmt.Fprintln(termsafe.Writer(os.Stderr), "tandem:", err)
		return 1
	}
	if args := os.Args[1:]; isClaudeInvocation(root, args) && !opensUI(args) {
		return runClaudeProtocol(args)
	}
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintln(termsafe.Writer(os.Stderr), "tandem:", err) // errors quote config values and file names
		return 1
	}
	return 0
}

// globalFlags are shared by every command.
type globalFlags struct {
	home string
}

func newRootCmd() *cobra.Command {
	g := &globalFlags{}
	f := &runFlags{}
	root := &cobra.Command{
		Use:           "tandem [PROMPT]",
		Short:         "A coding agent for any LLM provider",
		Long:          "tandem is a coding agent: point it at a folder, give it an API key for any LLM provider, and it reads, edits and runs commands there, asking before it does what it may not. On a terminal, `tandem` opens a chat with the agent in the current folder; `tandem -p PROMPT` and `tandem run` work headless.",
		Version:       version(),
		Example:       "  tandem                       # chat in this folder (terminal UI)\n  tandem --continue            # pick up the latest session here\n  tandem -p 'fix the failing test'   # one headless turn, as tandem run",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return rootRun(cmd, g, f, args)
		},
	}
	addRunFlags(root.Flags(), f)
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&g.home, "home", "", "folder for tandem's config and data (default: TANDEM_HOME, else XDG folders)")
	root.AddCommand(newRunCmd(g), newSessionsCmd(g), newModelsCmd(g), newDoctorCmd(g), newMCPCmd(g), newServeCmd(g), newConfigCmd(g), newACPCmd(g), newTrustCmd(g), newSkillsCmd(g), newPermissionsCmd(g), newPromptCmd(g), newSandboxCmd(g), newBridgeCmd(g), newPluginCmd(g), newUsersCmd(g), newAuditCmd(g))
	return root
}

// isClaudeInvocation reports whether tandem was started as the Claude Code
// CLI would be (by a Claude Agent SDK, or a script written for claude):
// flags or a prompt before any tandem subcommand. --help and --version
// stay tandem's own.
func isClaudeInvocation(root *cobra.Command, args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--home":
			i++
		case strings.HasPrefix(a, "--home="):
		case a == "-h" || a == "--help" || a == "--version":
			return false
		case !strings.HasPrefix(a, "-"):
			cmd, _, err := root.Find([]string{a})
			return err != nil || cmd == root
		default:
			return true
		}
	}
	return false
}
