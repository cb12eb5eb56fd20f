package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/scripted"
)

// A rewind re-places every file under the session's folders as they are
// now. A checkpointed file that became a folder stops it with the path
// and the fix (even with --force), and after `rm -rf sub && ln -s
// ../outside sub` nothing is created, overwritten or deleted in outside:
// those files are left alone and reported.
func TestE2ERewindPathsAsTheyAreNow(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("b1", "Bash", map[string]any{"command": "rm sub/a.txt && echo new > sub/new.txt && echo k2 > sub/keep.txt && echo t2 > top.txt"})),
		scripted.TextStep("changed"),
	}})
	x.WriteFile("sub/a.txt", "a1\n")
	x.WriteFile("sub/keep.txt", "k1\n")
	x.WriteFile("top.txt", "t1\n")
	r := x.RunStream("change", "--permission-mode", "trust")
	mustSucceed(t, r)
	id := r.Result().SessionID

	// top.txt became a folder holding the user's work.
	if err := os.Remove(filepath.Join(x.Work, "top.txt")); err != nil {
		t.Fatal(err)
	}
	x.WriteFile("top.txt/mine.txt", "mine\n")
	for _, args := range [][]string{{"--force"}, nil} {
		blocked := x.Run(append([]string{"sessions", "rewind", id, "--to", "1"}, args...)...)
		if blocked.Code == 0 || !strings.Contains(blocked.Stderr, filepath.Join(x.Work, "top.txt")+" is a folder") || !strings.Contains(blocked.Stderr, "mv ") {
			t.Fatalf("rewind %v over a folder: exit %d\n%s%s", args, blocked.Code, blocked.Stdout, blocked.Stderr)
		}
	}
	if x.ReadFile("top.txt/mine.txt") != "mine\n" || x.ReadFile("sub/keep.txt") != "k2\n" {
		t.Fatal("a blocked rewind changed files")
	}
	if err := os.Rename(filepath.Join(x.Work, "top.txt"), filepath.Join(x.Work, "aside")); err != nil {
		t.Fatal(err)
	}

	// sub is a link to a folder outside the workspace now.
	outside := filepath.Join(filepath.Dir(x.Work), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"new.txt": "outside new\n", "keep.txt": "outside keep\n"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(x.Work, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside", filepath.Join(x.Work, "sub")); err != nil {
		t.Fatal(err)
	}
	done := x.Run("sessions", "rewind", id, "--to", "1", "--force")
	if done.Code != 0 {
		t.Fatalf("rewind --force: %s%s", done.Stdout, done.Stderr)
	}
	if _, err := os.Lstat(filepath.Join(outside, "a.txt")); err == nil {
		t.Error("the rewind created outside/a.txt through the link")
	}
	for name, want := range map[string]string{"new.txt": "outside new\n", "keep.txt": "outside keep\n"} {
		if b, err := os.ReadFile(filepath.Join(outside, name)); err != nil || string(b) != want {
			t.Errorf("outside/%s = %q, %v: the rewind reached through the link", name, b, err)
		}
	}
	for _, p := range []string{"sub/a.txt", "sub/keep.txt", "sub/new.txt"} {
		if !strings.Contains(done.Stdout, "left alone (outside the session's folders now, or reached through a symbolic link): "+p) {
			t.Errorf("%s not reported as left alone:\n%s", p, done.Stdout)
		}
	}
	if x.ReadFile("top.txt") != "t1\n" {
		t.Errorf("top.txt = %q, want t1", x.ReadFile("top.txt"))
	}
}

// `tandem sessions rewind` takes the session's lease: while another
// process runs a turn of the session, it fails as busy instead of cutting
// the conversation under that turn.
func TestE2ERewindWaitsForTheLease(t *testing.T) {
	// Not parallel: a second process must start and reach the session
	// within a few seconds of a slow scripted step (the window the lease
	// is held); tests running beside it on a small machine close it.
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.TextStep("first"),
		scripted.TextStep("slow answer").WithFault(scripted.Fault{FirstByteDelayMS: 5000, Times: 1}),
	}})
	first := x.RunStream("start")
	mustSucceed(t, first)
	id := first.Result().SessionID

	a := x.Start(streamArgs("slow one", "--resume", id)...)
	a.WaitEvent("status", 30*time.Second, func(e event.Event) bool { return e.Type == event.Status })
	rw := x.Run("sessions", "rewind", id, "--to", "1", "--conversation-only")
	if rw.Code == 0 || !strings.Contains(rw.Stderr, "busy") {
		t.Fatalf("rewind during a turn: exit %d\n%s%s", rw.Code, rw.Stdout, rw.Stderr)
	}
	mustSucceed(t, a.Wait(30*time.Second))
	if after := x.Run("sessions", "rewind", id, "--to", "2", "--conversation-only"); after.Code != 0 {
		t.Fatalf("rewind after the turn: %s%s", after.Stdout, after.Stderr)
	}
}
