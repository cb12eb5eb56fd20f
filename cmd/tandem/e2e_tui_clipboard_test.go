package main

import (
	"bufio"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// startXvfb starts a private X server (Xvfb picks a free display and
// writes its number to the pipe given by -displayfd) and returns its
// DISPLAY; it is stopped when the test ends.
func startXvfb(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xclip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the clipboard paste test needs a real X server and clipboard tool (apt-get install xvfb xclip; .ci/run installs them)", tool)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "320x200x24")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb did not say its display")
		}
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not start within 30 s")
	}
	return ""
}

// Ctrl+V in the terminal UI pastes the clipboard's image (read with the
// desktop's clipboard tool, here xclip on a real X server) as an image of
// the prompt; with no image on the clipboard it says so.
func TestE2ETUIClipboardImagePaste(t *testing.T) {
	t.Parallel()
	display := startXvfb(t)
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "A tiny picture."}})
	x.Env = append(x.Env, "DISPLAY="+display, "WAYLAND_DISPLAY=")
	p := x.startTUI(120, 30, "--model", "anthropic/claude-sonnet-5-5")
	p.waitText("Ask tandem")

	// Nothing on the clipboard yet: a clear notice, nothing pasted.
	p.keys("C-v")
	p.waitText("the clipboard holds no image")

	img := testPNG(t)
	src := filepath.Join(t.TempDir(), "copied.png")
	if err := os.WriteFile(src, img, 0o644); err != nil {
		t.Fatal(err)
	}
	// xclip -quiet stays in the foreground, owning the clipboard, until
	// the test ends.
	own := exec.Command("xclip", "-quiet", "-selection", "clipboard", "-target", "image/png", "-in", src)
	own.Env = append(os.Environ(), "DISPLAY="+display)
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = own.Process.Kill(); _ = own.Wait() })

	// xclip takes the clipboard asynchronously: wait until the X server
	// lists the image among the clipboard's targets.
	deadline := time.Now().Add(20 * time.Second)
	for {
		q := exec.Command("xclip", "-selection", "clipboard", "-target", "TARGETS", "-out")
		q.Env = own.Env
		if out, _ := q.Output(); strings.Contains(string(out), "image/png") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("xclip did not take the clipboard within 20 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.keys("C-v")
	screen := p.waitFor("the pasted image", func(s string) bool { return strings.Contains(s, "@/") && strings.Contains(s, ".png") })
	if n := strings.Count(screen, ".png"); n != 1 {
		t.Errorf("one press pasted %d images:\n%s", n, screen)
	}
	p.typeText("what is this?")
	p.keys("Enter")
	p.waitText("A tiny picture.")
	reqs := x.srv.MainRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests, want 1", len(reqs))
	}
	if body := string(reqs[0].RawBody); !strings.Contains(body, base64.StdEncoding.EncodeToString(img)) {
		t.Errorf("the pasted image did not reach the request:\n%.1500s", body)
	}
}
