package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/sandbox"
)

func newSandboxCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Check the OS sandbox on this machine, or run a command inside it",
		Long: "The sandbox confines what tandem starts for the agent (Bash, background jobs, MCP stdio servers, hooks): " +
			"Landlock for files, seccomp for syscalls, a private network whose only way out is tandem's proxy. " +
			"Turn it on with `\"sandbox\": \"on\"` in your config or --sandbox. See docs/sandbox.md.",
	}
	cmd.AddCommand(newSandboxCheckCmd(g), newSandboxRunCmd(g))
	return cmd
}

func newSandboxCheckCmd(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Report what the sandbox can use here: Landlock ABI, seccomp, user namespaces",
		Args:  cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find the tandem binary: %w", err)
			}
			caps := sandbox.Probe(exe)
			s, err := a.ResolveSettings(cmd.Context(), app.SettingsRequest{})
			if err != nil {
				return err
			}
			usable := caps.Usable()
			w := cmd.OutOrStdout()
			if asJSON {
				out := map[string]any{"capabilities": caps, "mode": caps.Mode(), "config": s.Sandbox.Mode,
					"profiles": s.Sandbox.ProfileList(), "network_allow": sandbox.AllowedHosts(s.Sandbox)}
				if usable != nil {
					out["unavailable"] = usable.Error()
				}
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			yes := func(b bool) string {
				if b {
					return "yes"
				}
				return "no"
			}
			fmt.Fprintf(w, "system:           %s\n", caps.OS)
			fmt.Fprintf(w, "landlock ABI:     %d\n", caps.LandlockABI)
			fmt.Fprintf(w, "seccomp:          %s\n", yes(caps.Seccomp))
			ns := yes(caps.UserNS)
			if !caps.UserNS && caps.UserNSError != "" {
				ns += " (" + caps.UserNSError + ")"
			}
			fmt.Fprintf(w, "user namespaces:  %s\n", ns)
			if caps.Bubblewrap != "" {
				fmt.Fprintf(w, "bubblewrap:       %s (not needed: tandem makes its namespaces itself)\n", caps.Bubblewrap)
			}
			fmt.Fprintf(w, "sandbox:          %s\n", caps.Mode())
			fmt.Fprintf(w, "config:           %s\n", firstNonEmpty(s.Sandbox.Mode, "off (default)"))
			fmt.Fprintf(w, "profiles:         %s\n", strings.Join(s.Sandbox.ProfileList(), ", "))
			if usable != nil {
				fmt.Fprintln(w, usable)
				if s.Sandbox.On() {
					return exitError{code: 1}
				}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newSandboxRunCmd(g *globalFlags) *cobra.Command {
	var cwd string
	var addDirs []string
	var noNS bool
	cmd := &cobra.Command{
		Use:   "run [--cwd DIR] [--add-dir DIR] -- CMD [ARGS...]",
		Short: "Run a command inside the sandbox, as the agent's commands run (for debugging a policy)",
		Example: "  tandem sandbox run -- cat ~/.ssh/id_rsa      # refused\n" +
			"  tandem sandbox run -- sh -c 'echo x > ../outside.txt'",
		Args: cobra.MinimumNArgs(1),
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, args []string) error {
			s, err := a.ResolveSettings(cmd.Context(), app.SettingsRequest{Cwd: cwd})
			if err != nil {
				return err
			}
			roots := []string{s.Cwd}
			for _, d := range addDirs {
				abs, err := filepath.Abs(d)
				if err != nil {
					return fmt.Errorf("--add-dir %q: %w", d, err)
				}
				roots = append(roots, abs)
			}
			sc := s.Sandbox
			sc.Mode = sandbox.ModeOn
			sb, _, cleanup, err := a.SandboxFor(sc, roots, func(e event.Event) {
				fmt.Fprintln(cmd.ErrOrStderr(), "tandem:", e.Message)
			}, noNS)
			if err != nil {
				return err
			}
			defer cleanup()
			// As a session's: the sandbox process, and with it the guard
			// that removes the git program files a command creates.
			if err := sb.Open(); err != nil {
				return err
			}
			c := exec.Command(args[0], args[1:]...)
			c.Dir = s.Cwd
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			if err := sb.Confine(c); err != nil {
				return err
			}
			err = c.Run()
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return exitError{code: ee.ExitCode()}
			}
			return err
		}),
	}
	cmd.Flags().StringVar(&cwd, "cwd", "", "the workspace (default: the current folder)")
	cmd.Flags().StringSliceVar(&addDirs, "add-dir", nil, "more writable folders")
	cmd.Flags().BoolVar(&noNS, "no-namespaces", false, "use the fallback without user namespaces (Landlock TCP rules)")
	return cmd
}
