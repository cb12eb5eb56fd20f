package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A server that keeps failing is not given up on for good: after the fast
// retries it shows as failed, saying it will be tried again, and it
// connects once it can (a remote server back up, a fixed install). Here
// it fails its first nine starts; the schedule is shortened.
func TestServerFailingPastTheRetriesComesBack(t *testing.T) {
	exe, _ := os.Executable()
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	script := writeFile(t, dir, "flaky.sh", `#!/bin/sh
n=$(cat "`+count+`" 2>/dev/null || echo 0)
n=$((n+1))
echo $n > "`+count+`"
if [ "$n" -le 9 ]; then echo "not ready yet ($n)" >&2; exit 1; fi
exec "`+exe+`"
`)
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	h := startManager(t, Servers{"flaky": {Command: script, Env: map[string]string{helperEnv: "crashy"}}}, func(o *Options) {
		o.Backoff = func(int) time.Duration { return 5 * time.Millisecond }
		o.GivenUpRetry = 150 * time.Millisecond
	})
	h.m.WaitReady(context.Background(), 10*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	sawGivenUp := false
	for {
		st := h.m.Status()[0]
		if st.State == StateFailed && strings.Contains(st.Error, "trying again every 150ms, or reconnect it now") {
			sawGivenUp = true
		}
		if st.State == StateConnected {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never came back: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !sawGivenUp {
		t.Error("the failed state never said it would be tried again")
	}
	if r := h.call(t, "mcp__flaky__ping", map[string]any{"text": "x"}); r.IsError {
		t.Errorf("ping after coming back: %+v", r)
	}
}
