package acp

import (
	"os"
	"path/filepath"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

func TestTerminalExitCode(t *testing.T) {
	for _, c := range []struct {
		code   *int
		signal *string
		want   int
	}{
		{acpsdk.Ptr(0), nil, 0}, {acpsdk.Ptr(3), nil, 3}, {nil, acpsdk.Ptr("SIGTERM"), 143},
		{nil, acpsdk.Ptr("kill"), 137}, {nil, acpsdk.Ptr("SIGWHAT"), 137}, {nil, nil, -1},
	} {
		if got := exitCode(c.code, c.signal); got != c.want {
			t.Errorf("exitCode(%v, %v) = %d, want %d", c.code, c.signal, got, c.want)
		}
	}
}

// What the client does not offer stays on the local disk.
func TestClientFilesFallBackToDisk(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.txt")
	f := clientFiles{} // neither read nor write offered; no connection needed
	if err := f.WriteFile(t.Context(), p, []byte("local\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := f.ReadFile(t.Context(), p); err != nil || string(got) != "local\n" {
		t.Errorf("ReadFile = %q, %v", got, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "local\n" {
		t.Errorf("disk = %q", b)
	}
}
