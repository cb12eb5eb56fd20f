// Command gentree writes a deterministic source tree for benchmarking the
// Grep and Glob tools: nested folders of Go, Python, JS and text files,
// some ignored by .gitignore files, some containing a needle.
//
//	go run ./bench/gentree -out /tmp/tree -files 100000
//	TANDEM_BENCH_TREE=/tmp/tree go test -bench . ./internal/tools/search/
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

var words = strings.Fields(`alpha beta gamma delta epsilon func return value index buffer
reader writer parse config session token request response handler error context`)

var exts = []string{".go", ".py", ".js", ".ts", ".md", ".txt", ".json"}

func main() {
	out := flag.String("out", "", "folder to create (must not exist)")
	files := flag.Int("files", 100000, "number of files")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gentree: -out is required")
		os.Exit(2)
	}
	if err := generate(*out, *files, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gentree:", err)
		os.Exit(1)
	}
}

func generate(root string, n int, seed uint64) error {
	if _, err := os.Stat(root); err == nil {
		return fmt.Errorf("%s already exists", root)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	if err := write(filepath.Join(root, ".gitignore"), "node_modules/\n*.log\nbuild/\n"); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		// Three levels, ~20 files per folder.
		d := i / 20
		dir := filepath.Join(root, fmt.Sprintf("m%02d", d%50), fmt.Sprintf("p%03d", (d/50)%100), fmt.Sprintf("s%d", d/5000))
		switch i % 97 {
		case 13:
			dir = filepath.Join(dir, "node_modules")
		case 29:
			dir = filepath.Join(dir, "build")
		}
		name := fmt.Sprintf("f%06d%s", i, exts[rng.IntN(len(exts))])
		if i%501 == 0 {
			name = fmt.Sprintf("f%06d.log", i)
		}
		if err := write(filepath.Join(dir, name), content(rng, i)); err != nil {
			return err
		}
	}
	return nil
}

func content(rng *rand.Rand, i int) string {
	var sb strings.Builder
	lines := 20 + rng.IntN(60)
	for l := 0; l < lines; l++ {
		for w := 0; w < 4+rng.IntN(8); w++ {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		if i%1000 == 7 && l == lines/2 {
			sb.WriteString("NEEDLE_tandem_bench")
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func write(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(data), 0o644)
}
