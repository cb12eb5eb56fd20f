package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/termsafe"
)

// terminalAsker is the permission prompt of `tandem run` on a terminal
// (or any reader and writer, so tests can drive it). One goroutine reads
// lines for the asker's whole life, so a question abandoned because
// another client answered first does not leave a reader competing for the
// next line.
//
// A line typed before a question was on screen never answers it: the
// user meant it for something else (often the question another client
// answered first), and a stray "y" must not approve a call they never
// saw. Lines read before the question are dropped, and on a terminal the
// input not yet read is discarded too (flushInput).
type terminalAsker struct {
	out   io.Writer
	in    io.Reader
	once  sync.Mutex
	lines chan typedLine
	mu    sync.Mutex // one question on screen at a time
}

// typedLine is a line of input and when its last bytes were read.
type typedLine struct {
	text string
	at   time.Time
}

// newTerminalAsker returns an asker reading answers from in and writing
// prompts to out.
func newTerminalAsker(in io.Reader, out io.Writer) *terminalAsker {
	return &terminalAsker{in: in, out: out}
}

func (t *terminalAsker) start() {
	t.once.Lock()
	defer t.once.Unlock()
	if t.lines != nil {
		return
	}
	t.lines = make(chan typedLine)
	go func() {
		tr := &timedReader{r: t.in}
		br := bufio.NewReader(tr)
		for {
			l, err := br.ReadString('\n')
			if l != "" || err == nil {
				// A line already buffered was read with the bytes before
				// it: tr.last is when it arrived.
				t.lines <- typedLine{text: strings.TrimSuffix(l, "\n"), at: tr.last}
			}
			if err != nil {
				close(t.lines)
				return
			}
		}
	}()
}

// timedReader notes when each read returned.
type timedReader struct {
	r    io.Reader
	last time.Time
}

func (r *timedReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.last = time.Now()
	return n, err
}

// readLine returns the next line typed after since.
func (t *terminalAsker) readLine(ctx context.Context, since time.Time) (string, error) {
	for {
		select {
		case l, ok := <-t.lines:
			if !ok {
				return "", io.EOF
			}
			if l.at.Before(since) {
				fmt.Fprintf(t.out, "\n(ignored %q: typed before this question)\n", termsafe.Line(l.text))
				continue
			}
			return strings.TrimSpace(l.text), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// Ask prints the question and reads: y (allow once), a (allow always, then
// the scope), n or "n <message>" (deny, with the message for the model).
func (t *terminalAsker) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	asked := time.Now()
	flushInput(t.in)
	t.start()
	// The question shows what the model wrote: escape control characters,
	// or a command could hide its dangerous half behind a cursor move.
	fmt.Fprintf(t.out, "\n⚠ tandem wants to: %s\n", termsafe.Text(q.Summary))
	if q.Reason != "" {
		fmt.Fprintf(t.out, "  why it asks: %s\n", termsafe.Text(q.Reason))
	}
	if q.Diff != "" {
		fmt.Fprintf(t.out, "%s\n", termsafe.Text(strings.TrimRight(q.Diff, "\n")))
	}
	for {
		if q.AlwaysOffered() {
			fmt.Fprintf(t.out, "[y] allow once  [a] allow always (%s)  [n] deny (n <message> tells the model why): ", termsafe.Line(q.Suggestion))
		} else {
			fmt.Fprint(t.out, "[y] allow once  [n] deny (n <message> tells the model why): ")
		}
		line, err := t.readLine(ctx, asked)
		if err != nil {
			return permission.Answer{}, fmt.Errorf("read answer: %w", err)
		}
		word, rest, _ := strings.Cut(line, " ")
		switch strings.ToLower(word) {
		case "y", "yes":
			return permission.Answer{Decision: permission.AllowOnce, By: "terminal"}, nil
		case "n", "no":
			return permission.Answer{Decision: permission.DenyCall, Message: strings.TrimSpace(rest), By: "terminal"}, nil
		case "a", "always":
			if !q.AlwaysOffered() {
				break
			}
			scope, err := t.askScope(ctx, asked)
			if err != nil {
				return permission.Answer{}, err
			}
			return permission.Answer{Decision: permission.AllowAlways, Scope: scope, By: "terminal"}, nil
		}
		fmt.Fprintln(t.out, "please answer y, a or n")
	}
}

func (t *terminalAsker) askScope(ctx context.Context, asked time.Time) (permission.Scope, error) {
	for {
		fmt.Fprint(t.out, "save the rule for this [s]ession, the [p]roject or the [u]ser? [s]: ")
		line, err := t.readLine(ctx, asked)
		if err != nil {
			return "", fmt.Errorf("read scope: %w", err)
		}
		switch strings.ToLower(line) {
		case "", "s", "session":
			return permission.ScopeSession, nil
		case "p", "project":
			return permission.ScopeProject, nil
		case "u", "user":
			return permission.ScopeUser, nil
		}
	}
}
