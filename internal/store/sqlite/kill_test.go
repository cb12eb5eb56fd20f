package sqlite

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/message"
)

// helperEnv makes the test binary act as a writer process (see TestMain):
// its value is "dbpath sessionid"; it prints each message id once its
// append has committed, and loops until killed.
const helperEnv = "TANDEM_STORE_TEST_HELPER"

func runHelper() int {
	dbPath, sessionID, _ := strings.Cut(os.Getenv(helperEnv), " ")
	s, err := Open(dbPath, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		m := message.Message{Role: message.Assistant, Content: []message.Block{message.TextBlock(fmt.Sprint("step ", i))},
			Usage: &message.Usage{InputTokens: 1}, CostUSD: ptr(0.001)}
		m, err := s.AppendMessage(ctx, sessionID, m)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(m.ID)
	}
}

func TestKilledWriterLosesNothingCommitted(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	path := filepath.Join(t.TempDir(), "tandem.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sess := newSession(t, s, "/p")
	s.Close()

	// Two writer processes on the same session, killed mid-stream.
	const procs = 2
	committed := map[string]bool{}
	type result struct {
		ids []string
		err error
	}
	results := make(chan result, procs)
	// warm gets a value when a helper has committed its first few messages,
	// so the kill lands mid-stream however slowly the helpers start.
	const warmAfter = 20
	warm := make(chan struct{}, procs)
	var cmds []*exec.Cmd
	for p := 0; p < procs; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+path+" "+sess.ID)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		go func() {
			var ids []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				ids = append(ids, sc.Text())
				if len(ids) == warmAfter {
					warm <- struct{}{}
				}
			}
			results <- result{ids, sc.Err()}
		}()
	}
	kill := func() {
		for _, cmd := range cmds {
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	for p := 0; p < procs; p++ {
		select {
		case <-warm:
		case <-time.After(30 * time.Second):
			kill()
			t.Fatal("helpers did not commit in 30s")
		}
	}
	// Let them write on for a while (a WAL checkpoint or two in a quick
	// run), then kill both without warning.
	time.Sleep(300 * time.Millisecond)
	kill()
	for p := 0; p < procs; p++ {
		r := <-results
		for _, id := range r.ids {
			committed[id] = true
		}
	}
	for _, cmd := range cmds {
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Errorf("helper ended on its own (%v): it should have been killed while writing", err)
		}
	}

	s, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	var check string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	msgs, err := s.Messages(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, m := range msgs {
		stored[m.ID] = true
	}
	for id := range committed {
		if !stored[id] {
			t.Errorf("committed message %s lost", id)
		}
	}
	// A message committed but killed before its id was printed is fine; a
	// half-applied transaction is not.
	got, _ := s.GetSession(context.Background(), sess.ID)
	if got.MessageCount != len(msgs) || got.Usage.InputTokens != int64(len(msgs)) {
		t.Errorf("totals (count %d, tokens %d) disagree with %d stored messages", got.MessageCount, got.Usage.InputTokens, len(msgs))
	}
	t.Logf("%d messages committed by killed writers, %d stored", len(committed), len(msgs))
	// And the store is writable again.
	if _, err := s.AppendMessage(context.Background(), sess.ID, message.Message{Role: message.User}); err != nil {
		t.Fatal(err)
	}
}
