package shell

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// BenchmarkBashTrue measures tandem's own cost around the cheapest command.
func BenchmarkBashTrue(b *testing.B) {
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	env := tool.NewEnv("s1", dir, nil, b.TempDir())
	b.Cleanup(env.State.Close)
	bash := NewBash()
	call := tool.Call{ID: "call_1", Name: bashName, Input: json.RawMessage(`{"command":"true"}`), Env: env}
	for b.Loop() {
		if res, err := bash.Execute(context.Background(), call); err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkRawBashTrue is the floor: the same command run by os/exec alone.
func BenchmarkRawBashTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
