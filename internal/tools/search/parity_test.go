package search

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// TestGrepEngineParity runs the same queries through ripgrep and the Go
// search over a generated tree and requires identical output.
func TestGrepEngineParity(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg not installed")
	}
	isolateGitConfig(t)
	env := testEnv(t)
	rng := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("alpha beta Gamma delta func return TODO value x_1 {brace} (paren) naïve")
	exts := []string{".go", ".py", ".js", ".md", ".txt"}
	files := [][2]string{{".gitignore", "skip/\n*.tmp\n"}, {"sub/.gitignore", "!keep.tmp\nlocal_*\n"}}
	for i := 0; i < 300; i++ {
		var sb strings.Builder
		for l := 0; l < 5+rng.IntN(30); l++ {
			for w := 0; w < 1+rng.IntN(8); w++ {
				sb.WriteString(words[rng.IntN(len(words))] + " ")
			}
			sb.WriteString("\n")
		}
		dirs := []string{"", "sub/", "sub/deep/", "skip/", ".hid/", "pkg/a/"}
		name := fmt.Sprintf("%sf%03d%s", dirs[i%len(dirs)], i, exts[rng.IntN(len(exts))])
		switch i % 23 {
		case 3:
			name = fmt.Sprintf("sub/local_%d.go", i)
		case 5:
			name = fmt.Sprintf("x%d.tmp", i)
		}
		files = append(files, [2]string{name, sb.String()})
	}
	files = append(files, [2]string{"sub/keep.tmp", "func kept\n"}, [2]string{"bin.dat", "func\x00\n"})
	writeTree(t, env.WorkDir, files)

	queries := []map[string]any{
		{"pattern": "func"},
		{"pattern": "gamma", "-i": true, "output_mode": "count"},
		{"pattern": `^alpha \w+`, "output_mode": "content"},
		{"pattern": "TODO", "output_mode": "content", "-C": 2},
		{"pattern": "delta", "output_mode": "content", "-B": 1, "-A": 3, "type": "go"},
		{"pattern": `\{brace\}`, "glob": "*.{py,js}", "output_mode": "count"},
		{"pattern": "naïve", "output_mode": "files_with_matches", "path": "sub"},
		{"pattern": `return\s+value`, "output_mode": "count"},
		{"pattern": `alpha[^\n]*\n[^\n]*beta`, "multiline": true, "output_mode": "count"},
		{"pattern": "x_1", "glob": "!*.md", "output_mode": "content", "head_limit": 20, "offset": 5},
		{"pattern": "kept", "glob": "*.tmp"},
	}
	goG := NewGrepWith(GrepOptions{DisableRipgrep: true})
	rgG := NewGrepWith(GrepOptions{RipgrepPath: rg, AlwaysRipgrep: true})
	smallG := NewGrepWith(GrepOptions{RipgrepPath: rg})
	for _, q := range queries {
		t.Run(fmt.Sprint(q), func(t *testing.T) {
			a, b, c := exec1(t, goG, env, q), exec1(t, rgG, env, q), exec1(t, smallG, env, q)
			if a.IsError || b.IsError || c.IsError {
				t.Fatalf("errors: go %q / rg %q / default %q", a.Content, b.Content, c.Content)
			}
			if a.Content != b.Content {
				t.Fatalf("engines differ\n--- go ---\n%s\n--- rg ---\n%s", a.Content, b.Content)
			}
			if c.Content != b.Content {
				t.Fatalf("default (small tree: %v) differs from rg\n--- default ---\n%s\n--- rg ---\n%s", c.Meta["engine"], c.Content, b.Content)
			}
			if strings.HasPrefix(a.Content, "No ") {
				t.Logf("query found nothing: %v", q)
			}
		})
	}
	// The tree is small: a pattern both engines read alike is searched
	// in-process.
	if res := exec1(t, smallG, env, map[string]any{"pattern": "func"}); res.Meta["engine"] != "go" {
		t.Fatalf("small tree searched by %v, want the in-process search", res.Meta["engine"])
	}
}
