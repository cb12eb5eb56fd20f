package permission

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/permission/shell"
)

// countingAsker denies every question and counts them: the fuzzer makes
// millions of calls, so nothing may pile up.
type countingAsker struct{ asked int }

func (c *countingAsker) Ask(context.Context, Question) (Answer, error) {
	c.asked++
	return Answer{Decision: DenyCall}, nil
}

// FuzzShellValidator feeds the Bash validator (shell.Analyze and the
// engine's judgement built on it) commands grown from every command of
// TestShellCommandTable and TestHostileShellCommands. Properties:
//   - nothing panics, and the analysis of a command is the same every time;
//   - a command the validator cannot analyse is never allowed without
//     asking, in any mode, whatever the rules say;
//   - a command judged read-only stays read-only, reaching the same git
//     folders, when wrapped in a subshell `( ... )` or a group `{ ... }`:
//     both run exactly the same commands in the same folders.
//
// CI runs it for a few seconds (scripts/test); see docs/ARCHITECTURE.md
// (Testing) for longer runs.
func FuzzShellValidator(f *testing.F) {
	for _, c := range append(shellCommandTable(), hostileShellCommands()...) {
		f.Add(c.cmd)
	}
	work, home := f.TempDir(), f.TempDir()
	modes := []Mode{Explore, Normal, AcceptEdits, AskEdits, DontAsk, Trust}
	engines := make([]*Engine, len(modes))
	asker := &countingAsker{}
	for i, m := range modes {
		engines[i] = NewEngine(EngineOptions{Tools: builtinFiles,
			Mode: m, WorkDir: work, HomeDir: home, Asker: asker,
			UserRules:    fuzzRules(f, ActionDeny, "Bash(git clean:*)", "Bash(curl:*)", "Bash(rm -rf:*)"),
			ProjectRules: append(fuzzRules(f, ActionAllow, "Bash(npm test:*)", "Bash(make build)", "Bash(echo:*)"), fuzzRules(f, ActionAsk, "Bash(git push:*)")...),
		})
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		// The engine reads the command out of JSON, which replaces invalid
		// UTF-8: judge what it will see.
		raw, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			t.Fatal(err)
		}
		var in struct{ Command string }
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatal(err)
		}
		cmd = in.Command

		an, err := shell.Analyze(cmd, work, home)
		again, err2 := shell.Analyze(cmd, work, home)
		if (err == nil) != (err2 == nil) || !reflect.DeepEqual(an, again) {
			t.Fatalf("%q analysed differently twice:\n%+v (%v)\n%+v (%v)", cmd, an, err, again, err2)
		}
		if err != nil {
			for i, e := range engines {
				d, cerr := e.Check(context.Background(), Request{Tool: "Bash", Input: raw, ToolUseID: "tu1"})
				if cerr == nil && d.Behavior == Allow {
					t.Fatalf("%q cannot be analysed (%v) but %s mode allows it (rule %q)", cmd, err, modes[i], d.Rule)
				}
			}
			return
		}
		if len(an.Commands) == 0 || !an.ReadOnly() {
			return
		}
		if n := len(cmd) - len(strings.TrimRight(cmd, `\`)); n%2 == 1 {
			// A last backslash is literal at the end of the input, but
			// before the wrapping's newline it joins the next line: not
			// the same command (`ls *\` lists names ending in \, while
			// `(ls *\<newline>)` is `(ls *)`).
			return
		}
		for _, wrapped := range []string{"(\n" + cmd + "\n)", "{\n" + cmd + "\n}"} {
			w, werr := shell.Analyze(wrapped, work, home)
			if werr != nil {
				// Not every text that parses alone parses inside
				// brackets (a here-document running to the end, say);
				// such a wrapping is not the same command.
				continue
			}
			if !w.ReadOnly() {
				t.Fatalf("%q is read-only but %q is not: %v", cmd, wrapped, w.Reasons())
			}
			if got, want := gitDirsOf(w), gitDirsOf(an); !reflect.DeepEqual(got, want) {
				t.Fatalf("git in %q may run in %v, but wrapped as %q in %v", cmd, want, wrapped, got)
			}
		}
	})
}

func fuzzRules(f *testing.F, action Action, specs ...string) []Rule {
	var out []Rule
	for _, s := range specs {
		r, err := ParseRule(s, action)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// gitDirsOf lists the folders each git command of a may run in.
func gitDirsOf(a shell.Analysis) [][]string {
	var out [][]string
	for _, c := range a.Commands {
		if c.Program == "git" {
			out = append(out, c.GitDirs)
		}
	}
	return out
}
