// Command checkpoint measures what rewind checkpoints cost a turn: the
// checkpoint before a prompt (the first one of a session reads and saves
// the whole workspace; later ones only stat it), the scan around each Bash
// call, and the save around each Edit, in a generated workspace.
//
//	go run ./bench/checkpoint -files 10000 -runs 40
//	go run ./bench/checkpoint -tree /path/to/existing/tree
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"time"

	"github.com/tandem-agent/tandem/internal/checkpoint"
	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/store"
	"github.com/tandem-agent/tandem/internal/store/storeopen"
)

func main() {
	tree := flag.String("tree", "", "existing workspace to measure (default: generate one)")
	files := flag.Int("files", 10000, "files in the generated workspace")
	runs := flag.Int("runs", 40, "measured calls per figure")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the measured calls here")
	noWatch := flag.Bool("no-watch", false, "stat scans only, no inotify (checkpoints.no_watch)")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if err := run(*tree, *files, *runs, *noWatch); err != nil {
		fmt.Fprintln(os.Stderr, "bench/checkpoint:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(tree string, files, runs int, noWatch bool) error {
	tmp, err := os.MkdirTemp("", "tandem-bench-checkpoint")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if tree == "" {
		tree = filepath.Join(tmp, "work")
		gen := exec.Command("go", "run", "./bench/gentree", "-out", tree, "-files", fmt.Sprint(files))
		gen.Stdout, gen.Stderr = os.Stderr, os.Stderr
		if err := gen.Run(); err != nil {
			return fmt.Errorf("generate tree: %w", err)
		}
	}
	tree, _ = filepath.Abs(tree)
	ctx := context.Background()
	st, err := storeopen.Open(ctx, filepath.Join(tmp, "data", "tandem.db"), storeopen.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	svc := checkpoint.NewService(st, filepath.Join(tmp, "data"), checkpoint.Options{})
	sess, err := st.CreateSession(ctx, store.Session{Cwd: tree})
	if err != nil {
		return err
	}
	tr := svc.Tracker(sess.ID, tree, checkpoint.Config{NoWatch: noWatch}, func(m string) { fmt.Fprintln(os.Stderr, "notice:", m) })
	prompt := func() (time.Duration, error) {
		start := time.Now()
		if _, err := tr.Begin(ctx, "bench"); err != nil {
			return 0, err
		}
		d := time.Since(start)
		_, err := st.AppendMessage(ctx, sess.ID, message.Message{Role: message.User, Content: []message.Block{message.TextBlock("bench")}})
		return d, err
	}

	first, err := prompt()
	if err != nil {
		return err
	}
	// The first sight runs beside the model's first call; a tool call
	// waits for it. Measure until it is done.
	s0 := time.Now()
	tr.BeforeTool(ctx, "Bash", json.RawMessage(`{"command":"true"}`))
	first += time.Since(s0)
	target := filepath.Join(tree, "bench-target.txt")
	if err := os.WriteFile(target, []byte("start\n"), 0o644); err != nil {
		return err
	}
	tr.End(ctx)
	later, err := prompt()
	if err != nil {
		return err
	}

	bash := json.RawMessage(`{"command":"true"}`)
	var idle, changing, edit []time.Duration
	for i := 0; i < runs; i++ {
		s := time.Now()
		tr.BeforeTool(ctx, "Bash", bash)
		tr.AfterTool(ctx, "Bash", bash)
		idle = append(idle, time.Since(s))

		s = time.Now()
		tr.BeforeTool(ctx, "Bash", bash)
		mid := time.Now()
		if err := os.WriteFile(target, []byte(fmt.Sprintf("bash %d\n", i)), 0o644); err != nil {
			return err
		}
		work := time.Since(mid)
		tr.AfterTool(ctx, "Bash", bash)
		changing = append(changing, time.Since(s)-work)

		in, _ := json.Marshal(map[string]string{"file_path": target})
		s = time.Now()
		tr.BeforeTool(ctx, "Edit", in)
		mid = time.Now()
		if err := os.WriteFile(target, []byte(fmt.Sprintf("edit %d\n", i)), 0o644); err != nil {
			return err
		}
		work = time.Since(mid)
		tr.AfterTool(ctx, "Edit", in)
		edit = append(edit, time.Since(s)-work)
	}
	tr.End(ctx)
	tr.Close()
	// A new process (every `tandem run --resume`): the stored baseline,
	// one full stat scan that also sets the watches up.
	tr2 := svc.Tracker(sess.ID, tree, checkpoint.Config{NoWatch: noWatch}, nil)
	s1 := time.Now()
	if _, err := tr2.Begin(ctx, "resumed"); err != nil {
		return err
	}
	resumed := time.Since(s1)
	tr2.End(ctx)
	tr2.Close()
	var floor []time.Duration
	for i := 0; i < runs; i++ {
		s := time.Now()
		statAll(tree)
		floor = append(floor, time.Since(s))
	}
	n, _ := countFiles(tree)
	mode := "inotify"
	if noWatch {
		mode = "stat scans only"
	}
	fmt.Printf("workspace: %s (%d files on disk, %d runs, %s)\n", tree, n, runs, mode)
	fmt.Printf("first checkpoint of a session (reads and saves every file): %s\n", ms(first))
	fmt.Printf("later checkpoint before a prompt, same process:             %s\n", ms(later))
	fmt.Printf("first checkpoint in a new process (stored baseline):        %s\n", ms(resumed))
	bashMed := median(changing)
	fmt.Printf("per Bash call, nothing changed (scan before + after):       %s median, %s p90\n", ms(median(idle)), ms(p90(idle)))
	fmt.Printf("per Bash call, one file changed:                            %s median, %s p90 (target < 20 ms) %s\n",
		ms(bashMed), ms(p90(changing)), verdict(bashMed < 20*time.Millisecond))
	fmt.Printf("per Edit (prior and new content saved):                     %s median, %s p90\n", ms(median(edit)), ms(p90(edit)))
	fmt.Printf("floor: one plain readdir+lstat walk of the tree, no ignores: %s median (a Bash call costs two walks)\n", ms(median(floor)))
	if la, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average: %s", la)
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

func sorted(ds []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), ds...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func median(ds []time.Duration) time.Duration { s := sorted(ds); return s[len(s)/2] }
func p90(ds []time.Duration) time.Duration    { s := sorted(ds); return s[len(s)*9/10] }

// statAll is the least any stat scan must do: list every folder, lstat
// every file, sequentially.
func statAll(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			statAll(filepath.Join(dir, e.Name()))
		} else {
			_, _ = e.Info()
		}
	}
}

func countFiles(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n, err
}
