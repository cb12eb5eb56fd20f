package permission

import (
	"os"
	"testing"

	"github.com/tandem-agent/tandem/internal/sandbox"
)

// The test binary is also the sandbox's launcher (tandem's
// __sandbox-exec), for the corpus run in the sandbox.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ExecArg {
		os.Exit(sandbox.Exec(os.Args[2:]))
	}
	os.Exit(m.Run())
}
