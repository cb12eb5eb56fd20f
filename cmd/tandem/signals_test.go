package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// signalHelperEnv makes the test binary the helper process of
// TestSIGTERMEndsABlockedProcess (TestMain skips building tandem for it).
const signalHelperEnv = "TANDEM_TEST_SIGNAL_HELPER"

// The helper: signal handling as every command installs it, then a read
// that no cancellation reaches (opening a FIFO nobody writes).
func TestSignalHelperProcess(t *testing.T) {
	t.Parallel()
	fifo := os.Getenv(signalHelperEnv)
	if fifo == "" {
		t.Skip("run by TestSIGTERMEndsABlockedProcess")
	}
	_, stop := interruptContext(context.Background())
	defer stop()
	os.Stdout.WriteString("ready\n")
	f, err := os.Open(fifo) // blocks
	if err == nil {
		f.Close()
	}
	select {}
}

// A SIGTERM ends tandem even while a goroutine is blocked where the
// cancelled context does not reach (the FIFO finding of issue 23).
func TestSIGTERMEndsABlockedProcess(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalHelperProcess$")
	cmd.Env = append(os.Environ(), signalHelperEnv+"="+fifo)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper said %q", line)
	}
	go func() { done <- cmd.Wait() }()
	time.Sleep(100 * time.Millisecond) // let it block in the open
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
			t.Errorf("exit status %d after SIGTERM, want %d", code, 128+int(syscall.SIGTERM))
		}
	case <-time.After(cleanupDeadline + 20*time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("SIGTERM did not end a process blocked on a FIFO")
	}
}
