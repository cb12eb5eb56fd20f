// Command embed runs one prompt in a folder with tandem embedded as a Go
// library: a custom tool (count_lines), events printed as they arrive, and
// permission questions answered on standard input.
//
//	export ANTHROPIC_API_KEY=...
//	go run ./examples/embed -dir . "how many lines does go.mod have?"
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/tandem-agent/tandem"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string) error {
	fl := flag.NewFlagSet("embed", flag.ContinueOnError)
	dir := fl.String("dir", ".", "the folder the agent works in")
	model := fl.String("model", "", "provider/model (default: from the config or the API key in the environment)")
	home := fl.String("home", "", "tandem home folder (default: the CLI's)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	prompt := strings.Join(fl.Args(), " ")
	if prompt == "" {
		return errors.New("no prompt: embed [-dir DIR] PROMPT")
	}

	countLines, err := tandem.NewTool("count_lines", "Count the lines of a file in the working folder.", countLinesRun)
	if err != nil {
		return err
	}
	countLines.ReadOnly = true

	answers := bufio.NewScanner(stdin)
	eng, err := tandem.Open(ctx, tandem.Options{
		Home: *home, Getenv: getenv, Model: *model,
		Tools: []tandem.Tool{countLines},
		Permission: func(ctx context.Context, req tandem.PermissionRequest) tandem.PermissionDecision {
			fmt.Fprintf(stdout, "? %s (%s) allow? [y/N] ", req.Summary, req.Reason)
			if answers.Scan() && strings.EqualFold(strings.TrimSpace(answers.Text()), "y") {
				return tandem.PermissionDecision{Behavior: tandem.AllowOnce}
			}
			return tandem.PermissionDecision{Behavior: tandem.Deny, Message: "the user said no"}
		},
	})
	if err != nil {
		return err
	}
	defer eng.Close()

	s, err := eng.NewSession(ctx, tandem.SessionOptions{Dir: *dir, OnEvent: func(e tandem.Event) { printEvent(stdout, e) }})
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := s.Run(ctx, prompt, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n[%s in %d steps; session %s]\n", res.Subtype, res.NumTurns, res.SessionID)
	if res.IsError {
		return errors.New(res.Error)
	}
	return nil
}

type countLinesInput struct {
	Path string `json:"path" jsonschema:"the file, relative to the working folder"`
}

// countLinesRun opens the file through an os.Root, so the model cannot
// reach outside the working folder with "../" or a symlink.
func countLinesRun(ctx context.Context, call tandem.ToolCall, in countLinesInput) (tandem.ToolResult, error) {
	root, err := os.OpenRoot(call.WorkDir)
	if err != nil {
		return tandem.ToolResult{}, err
	}
	defer root.Close()
	f, err := root.Open(in.Path)
	if err != nil {
		return tandem.ToolResult{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
	}
	if err := sc.Err(); err != nil {
		return tandem.ToolResult{}, fmt.Errorf("read %s: %w", in.Path, err)
	}
	return tandem.ToolResult{Content: fmt.Sprintf("%s has %d lines", in.Path, n)}, nil
}

func printEvent(w io.Writer, e tandem.Event) {
	switch e.Type {
	case tandem.EventText:
		fmt.Fprint(w, e.Text)
	case tandem.EventToolUse:
		fmt.Fprintf(w, "\n> %s %s\n", e.ToolName, e.Input)
	case tandem.EventToolResult:
		fmt.Fprintf(w, "< %s\n", firstLine(e.Output))
	case tandem.EventRetry, tandem.EventError:
		fmt.Fprintf(w, "\n! %s %s\n", e.Type, e.Error)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
