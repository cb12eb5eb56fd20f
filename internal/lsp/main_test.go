package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/sandbox"
)

// The test binary is also the sandbox's launcher (tandem's __sandbox-exec
// role) for the sandboxed tests, and, started under a server's program
// name (fakeServerName), the stand-in language server of fake_test.go.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		os.Exit(sandbox.Exec(os.Args[2:]))
	}
	if filepath.Base(os.Args[0]) == fakeServerName {
		os.Exit(fakeServer(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}
