package lsp

import (
	"os"
	"testing"

	"github.com/tandem-agent/tandem/internal/sandbox"
)

// The test binary is also the sandbox's launcher (tandem's __sandbox-exec
// role) for the sandboxed tests.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		os.Exit(sandbox.Exec(os.Args[2:]))
	}
	os.Exit(m.Run())
}
