package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// Whatever stops a run before its turn — a bad flag, a bad config file, no
// prompt, a store that cannot be opened — json and stream-json output still
// end with one result line on stdout, as docs/events.md promises.
func TestE2EEarlyErrorsEmitResultLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(x *e2e)
		args  []string
		want  string
	}{
		{"bad flag", nil, []string{"run", "-p", "hi", "--output-format", "FORMAT", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{"bad flag before the format", nil, []string{"run", "--no-such-flag", "-p", "hi", "--output-format", "FORMAT"}, "unknown flag: --no-such-flag"},
		{"bad flag value", nil, []string{"run", "-p", "hi", "--output-format=FORMAT", "--max-turns", "many"}, "invalid argument \"many\""},
		{"bad config", func(x *e2e) {
			os.WriteFile(filepath.Join(x.Home, "config.json"), []byte(`{"model": 42}`), 0o644)
		}, []string{"run", "-p", "hi", "--output-format", "FORMAT"}, "config.json"},
		{"no prompt", nil, []string{"run", "--output-format", "FORMAT"}, "no prompt"},
		{"unopenable store", func(x *e2e) {
			os.MkdirAll(filepath.Join(x.Home, "tandem.db", "in-the-way"), 0o755) // a folder where the database file goes
		}, []string{"run", "-p", "hi", "--output-format", "FORMAT", "--model", "anthropic/claude-sonnet-5-5"}, "tandem.db"},
	}
	for _, format := range []string{"stream-json", "json"} {
		for _, c := range cases {
			t.Run(format+"/"+c.name, func(t *testing.T) {
				x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("never")}})
				if c.setup != nil {
					c.setup(x)
				}
				args := make([]string, len(c.args))
				for i, a := range c.args {
					args[i] = strings.ReplaceAll(a, "FORMAT", format)
				}
				r := x.Run(args...)
				if r.Code == 0 {
					t.Fatalf("exit 0\n%s", r.Stdout)
				}
				lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
				if len(r.Events) != 1 || len(lines) != 1 {
					t.Fatalf("stdout is not one result line:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
				}
				res := r.Events[0]
				if res.Type != event.Result || !res.IsError || res.Subtype != event.SubtypeError || !strings.Contains(res.Error, c.want) {
					t.Errorf("result %+v, want an error containing %q", res, c.want)
				}
				if !strings.Contains(r.Stderr, c.want) {
					t.Errorf("stderr lacks the error:\n%s", r.Stderr)
				}
			})
		}
	}
}
