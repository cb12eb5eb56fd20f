package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tandem-agent/tandem/internal/app"
)

func newSkillsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "skills", Short: "Skills, custom commands and sub-agents (Claude Code-compatible)"}
	var asJSON bool
	var dir string
	list := &cobra.Command{
		Use: "list", Short: "List the skills, /commands and agents a folder offers, with problems in their files", Args: cobra.NoArgs,
		RunE: withApp(g, func(cmd *cobra.Command, a *app.App, _ []string) error {
			cwd, err := absCwd(dir)
			if err != nil {
				return err
			}
			ext, err := a.ExtensionsFor(cwd)
			if err != nil {
				return err
			}
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(ext)
			}
			return printExtensions(cmd, ext)
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	list.Flags().StringVar(&dir, "cwd", "", "working folder (default: the current one)")
	cmd.AddCommand(list)
	return cmd
}

func printExtensions(cmd *cobra.Command, ext *app.Extensions) error {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tSCOPE\tCONTEXT\tINVOCATION\tDESCRIPTION")
	for _, s := range ext.Skills {
		var who []string
		if s.ModelVisible() {
			who = append(who, "model")
		}
		if s.UserInvocable {
			who = append(who, "/"+s.Name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, s.Scope, s.Context, strings.Join(who, ", "), short(s.Description))
	}
	fmt.Fprintln(tw, "\nCOMMAND\tSCOPE\tKIND\tARGUMENTS\tDESCRIPTION")
	for _, c := range ext.Commands {
		fmt.Fprintf(tw, "/%s\t%s\t%s\t%s\t%s\n", c.Name, c.Scope, c.Kind, c.ArgumentHint, short(c.Description))
	}
	fmt.Fprintln(tw, "\nAGENT\tSCOPE\tTOOLS\tMODEL\tDESCRIPTION")
	for _, d := range ext.Agents {
		tools := "all"
		if len(d.Tools) > 0 {
			tools = strings.Join(d.Tools, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Name, d.Scope, tools, firstNonEmptyStr(d.Model, "inherit"), short(d.Description))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "\nBuilt-in commands (files cannot replace them): /%s\n", strings.Join(ext.Builtins, ", /"))
	for _, n := range ext.Notices {
		fmt.Fprintf(out, "note: %s\n", n)
	}
	for _, w := range ext.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
	return nil
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func firstNonEmptyStr(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
