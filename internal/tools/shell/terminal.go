package shell

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/secrets"
	"github.com/tandem-agent/tandem/internal/tool"
)

// runInTerminal runs a foreground command in the session's Terminal (an
// editor's, over ACP) rather than as tandem's child: same script, folder,
// environment changes, timeout and result as runForeground. The final
// folder comes back through a file, as a terminal has no fd 3.
func runInTerminal(ctx context.Context, call tool.Call, l launcher, in bashInput, dir string, timeout time.Duration, note string) tool.Result {
	env := call.Env
	cwdFile := filepath.Join(os.TempDir(), "tandem-cwd-"+randomHex())
	defer os.Remove(cwdFile)
	trap := "trap '__tandem_ec=$?; pwd -P >" + shellQuote(cwdFile) + " 2>/dev/null; exit $__tandem_ec' EXIT\n"
	tctx, cancel := context.WithTimeout(ctx, timeout)
	res, err := env.Terminal.Run(tctx, tool.TerminalCommand{ToolUseID: call.ID, Shell: l.shell, Script: trap + in.Command,
		Dir: dir, Env: terminalEnv(hardenGit(l.env, in.Command, dir))})
	timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	if err != nil && tctx.Err() == nil {
		return tool.ErrorResult(fmt.Sprintf("Bash could not run the command in the client's terminal (in %s): %v", dir, err))
	}
	out := runOutcome{code: res.ExitCode, timedOut: timedOut, interrupted: ctx.Err() != nil}
	if b, err := os.ReadFile(cwdFile); err == nil {
		out.newDir = strings.TrimSpace(string(b))
	}
	coll := newCollector(env.DataDir, env.SessionID, "bash", maxInline)
	w := l.redact.NewWriter(coll)
	_, _ = w.Write([]byte(res.Output))
	secrets.Flush(w)
	if out.timedOut {
		env.Emit(event.Event{Type: event.ToolTimeout, ToolUseID: call.ID, ToolName: bashName, TimeoutMS: timeout.Milliseconds()})
	}
	text, truncated, spill := coll.finish()
	if res.Truncated {
		text = "[the terminal kept only the end of the output]\n" + text
	}
	return buildResult(env, in, out, text, truncated || res.Truncated, spill, timeout, note)
}

// terminalEnv is what a command in a terminal needs changed from the
// terminal's environment (taken to be like tandem's own): the
// non-interactive settings and git hardening of cmdEnv, and every
// credential tandem withholds, blanked; sorted.
func terminalEnv(cmdEnv []string) []string {
	have := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			have[k] = v
		}
	}
	want := map[string]bool{}
	var out []string
	for _, kv := range cmdEnv {
		k, v, _ := strings.Cut(kv, "=")
		want[k] = true
		if old, ok := have[k]; !ok || old != v {
			out = append(out, kv)
		}
	}
	for k := range have {
		if !want[k] {
			out = append(out, k+"=")
		}
	}
	sort.Strings(out)
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func randomHex() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
