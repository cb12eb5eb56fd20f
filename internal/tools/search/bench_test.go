package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// Benchmarks run over a tree made by bench/gentree:
//
//	go run ./bench/gentree -out /tmp/tree -files 100000
//	TANDEM_BENCH_TREE=/tmp/tree go test -run '^$' -bench . ./internal/tools/search/
func benchTree(b *testing.B) *tool.Env {
	dir := os.Getenv("TANDEM_BENCH_TREE")
	if dir == "" {
		b.Skip("TANDEM_BENCH_TREE is not set (make a tree with bench/gentree)")
	}
	return tool.NewEnv("bench", dir, nil, "")
}

func benchRun(b *testing.B, tl tool.Tool, input string) {
	env := benchTree(b)
	b.ResetTimer()
	for b.Loop() {
		res, err := tl.Execute(context.Background(), tool.Call{ID: "b", Input: json.RawMessage(input), Env: env})
		if err != nil || res.IsError {
			b.Fatalf("%v %s", err, res.Content)
		}
	}
}

func BenchmarkGlobAllGo(b *testing.B) { benchRun(b, NewGlob(), `{"pattern":"**/*.go"}`) }

func BenchmarkGrepGoEngineFiles(b *testing.B) {
	benchRun(b, NewGrepWith(GrepOptions{DisableRipgrep: true}), `{"pattern":"NEEDLE_tandem_\\w+"}`)
}

func BenchmarkGrepGoEngineContent(b *testing.B) {
	benchRun(b, NewGrepWith(GrepOptions{DisableRipgrep: true}), `{"pattern":"NEEDLE_tandem_\\w+","output_mode":"content"}`)
}

func BenchmarkGrepRipgrepFiles(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg not installed")
	}
	benchRun(b, NewGrep(), `{"pattern":"NEEDLE_tandem_\\w+"}`)
}

// BenchmarkRawRipgrep is the baseline: rg itself with the same flags.
func BenchmarkRawRipgrep(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed")
	}
	env := benchTree(b)
	for b.Loop() {
		cmd := exec.Command(rg, "--hidden", "--no-require-git", "--glob", "!.git", "-l", "NEEDLE_tandem_\\w+", env.WorkDir)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawRipgrepFiles is the Glob baseline: rg --files with a glob.
func BenchmarkRawRipgrepFiles(b *testing.B) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		b.Skip("rg not installed")
	}
	env := benchTree(b)
	for b.Loop() {
		cmd := exec.Command(rg, "--files", "--hidden", "--no-require-git", "--glob", "**/*.go", env.WorkDir)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrepSmallTree compares, on a bench/session-like tree of 300
// Go files, the default Grep (searched in-process), Grep through rg, and
// the Go engine without the small-tree guards:
//
//	go test -run '^$' -bench GrepSmallTree ./internal/tools/search/
func BenchmarkGrepSmallTree(b *testing.B) {
	dir := b.TempDir()
	for i := range 300 {
		p := filepath.Join(dir, fmt.Sprintf("pkg%02d/file%02d.go", i/15, i%15))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		body := strings.Repeat(fmt.Sprintf("func Handle%02d(x int) int { return x }\n", i%100), 50)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := tool.NewEnv("bench", dir, nil, "")
	rg, _ := exec.LookPath("rg")
	for _, e := range []struct {
		name string
		g    *Grep
	}{
		{"default", NewGrepWith(GrepOptions{RipgrepPath: rg})},
		{"ripgrep", NewGrepWith(GrepOptions{RipgrepPath: rg, AlwaysRipgrep: true})},
		{"go", NewGrepWith(GrepOptions{DisableRipgrep: true})},
	} {
		b.Run(e.name, func(b *testing.B) {
			if rg == "" && e.name != "go" {
				b.Skip("rg not installed")
			}
			for b.Loop() {
				res, err := e.g.Execute(context.Background(), tool.Call{ID: "b", Input: json.RawMessage(`{"pattern":"func Handle0\\d"}`), Env: env})
				if err != nil || res.IsError {
					b.Fatalf("%v %s", err, res.Content)
				}
			}
		})
	}
}
