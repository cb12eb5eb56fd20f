package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// spawnTerminal is a client terminal that really runs the command, with
// its own environment plus the changes asked for.
type spawnTerminal struct {
	mu   sync.Mutex
	runs []tool.TerminalCommand
}

func (s *spawnTerminal) Run(ctx context.Context, c tool.TerminalCommand) (tool.TerminalResult, error) {
	s.mu.Lock()
	s.runs = append(s.runs, c)
	s.mu.Unlock()
	cmd := exec.CommandContext(ctx, c.Shell, "-c", c.Script)
	cmd.Dir, cmd.Env, cmd.WaitDelay = c.Dir, append(os.Environ(), c.Env...), time.Second
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && ctx.Err() == nil {
		return tool.TerminalResult{}, err
	}
	return tool.TerminalResult{Output: string(out), ExitCode: cmd.ProcessState.ExitCode()}, nil
}

// With a Terminal, Bash runs its command there, with tandem's environment
// changes (credentials blanked), and still reports the output, the exit
// code, the folder it ended in and a timeout.
func TestBashRunsInTheSessionsTerminal(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-terminal-secret")
	env, _ := newTestEnv(t)
	if err := os.Mkdir(filepath.Join(env.WorkDir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	term := &spawnTerminal{}
	env.Terminal = term
	b := NewBash()
	res := run(t, context.Background(), b, env, map[string]any{"command": `echo "out [$ANTHROPIC_API_KEY] $PAGER"; cd sub; exit 3`})
	if !res.IsError || !strings.Contains(res.Content, "out [] cat") || !strings.Contains(res.Content, "Exit code 3") {
		t.Errorf("result: %+v", res)
	}
	if got := CurrentDir(env); filepath.Base(got) != "sub" {
		t.Errorf("cwd after cd = %s", got)
	}
	if len(term.runs) != 1 || term.runs[0].ToolUseID == "" || term.runs[0].Dir != env.WorkDir {
		t.Errorf("terminal runs: %+v", term.runs)
	}
	start := time.Now()
	res = run(t, context.Background(), b, env, map[string]any{"command": "echo started; sleep 30", "timeout": 300})
	if !res.Timeout || !strings.Contains(res.Content, "timed out") || time.Since(start) > 10*time.Second {
		t.Errorf("timeout: %+v after %v", res, time.Since(start))
	}
}
