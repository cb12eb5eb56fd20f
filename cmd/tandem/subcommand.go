package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// bareWord is what a subcommand name looks like on a command line.
var bareWord = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// unknownSubcommand refuses a command line that reads as a subcommand
// tandem does not have, instead of running it as a prompt (`tandem users
// add alice` would otherwise start an agent turn). The rule: without
// -p/--print, --input-format or --output-format (an SDK or script speaking
// Claude Code's CLI), a first argument that is a bare word (letters,
// digits, - and _) and names no subcommand is refused when it is within
// edit distance 2 of one (a typo: "did you mean") or is followed by more
// words (an unquoted prompt, or a command tandem does not have). A quoted
// prompt (`tandem "fix the bug"`), a single word (`tandem hello`) and
// every invocation with -p stay prompts. See docs/cli.md.
func unknownSubcommand(root *cobra.Command, args []string) error {
	i := 0
	for i < len(args) && (args[i] == "--home" || strings.HasPrefix(args[i], "--home=")) {
		if args[i] == "--home" {
			i++
		}
		i++
	}
	if i >= len(args) || !bareWord.MatchString(args[i]) {
		return nil
	}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "-p", "--print", "--input-format", "--output-format":
			return nil
		case "--":
			return nil
		}
	}
	word := args[i]
	if cmd, _, err := root.Find([]string{word}); err == nil && cmd != root {
		return nil
	}
	if root.SuggestionsMinimumDistance <= 0 {
		root.SuggestionsMinimumDistance = 2 // cobra's default, which it sets only on its own error path
	}
	suggest := root.SuggestionsFor(word)
	more := i+1 < len(args) && !strings.HasPrefix(args[i+1], "-")
	if len(suggest) == 0 && !more {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "unknown command %q for \"tandem\"", word)
	if len(suggest) > 0 {
		fmt.Fprintf(&b, "; did you mean %s?", strings.Join(suggest, " or "))
	}
	fmt.Fprintf(&b, " (`tandem --help` lists the commands; to give tandem a prompt, quote it as one argument: tandem %q, or tandem -p %q for one headless turn)",
		strings.Join(args[i:], " "), strings.Join(args[i:], " "))
	return fmt.Errorf("%s", b.String())
}
