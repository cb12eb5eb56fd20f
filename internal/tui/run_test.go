package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

type panicky struct{ *fakeBackend }

func (panicky) SetMode(context.Context, string) error { panic("boom") }

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A panic anywhere in the UI ends Run with an error and gives the
// terminal back: the alternate screen is left and the cursor shown.
func TestRunRestoresTerminalAfterPanic(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Backend: panicky{newFake()}, Sink: NewSink(), Input: inR, Output: out,
			Env: []string{"TERM=xterm-256color"}, Width: 80, Height: 24})
	}()
	time.Sleep(300 * time.Millisecond)
	_, _ = inW.Write([]byte("\x1b[Z")) // shift+tab: the backend panics
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after a panic")
	}
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("Run returned %v, want an internal error", err)
	}
	s := out.String()
	if !strings.Contains(s, "\x1b[?1049l") || !strings.Contains(s, "\x1b[?25h") {
		t.Fatalf("terminal not restored (no alt-screen exit or cursor show) in %q", s[max(0, len(s)-200):])
	}
}

// Quitting from the keyboard ends Run cleanly and restores the terminal.
func TestRunQuitsOnCtrlD(t *testing.T) {
	inR, inW := io.Pipe()
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Backend: newFake(), Sink: NewSink(), Input: inR, Output: out,
			Env: []string{"TERM=xterm-256color"}, Width: 80, Height: 24})
	}()
	time.Sleep(300 * time.Millisecond)
	_, _ = inW.Write([]byte{0x04})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ctrl+d did not quit")
	}
	inW.Close()
	if !strings.Contains(out.String(), "\x1b[?1049l") {
		t.Fatal("alternate screen not left")
	}
}
