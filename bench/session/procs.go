package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// buildBinaries builds tandem and scripted-model from the module at root
// into dir and returns their paths.
func buildBinaries(ctx context.Context, root, dir string) (tandem, model string, err error) {
	tandem, model = filepath.Join(dir, "tandem"), filepath.Join(dir, "scripted-model")
	for _, b := range [][2]string{{tandem, "./cmd/tandem"}, {model, "./cmd/scripted-model"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b[0], b[1])
		cmd.Dir = root
		// As released: a static binary (no libc mapped, ~3 MiB less RSS).
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("go build %s: %w\n%s", b[1], err, out)
		}
	}
	return tandem, model, nil
}

// moduleRoot is the folder holding the go.mod of the current module.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the tandem module: run from the repository (go run ./bench/session)")
	}
	return filepath.Dir(gomod), nil
}

// modelServer is a running scripted-model process.
type modelServer struct {
	cmd *exec.Cmd
	url string
}

// startModel starts scripted-model on script and reads its URL from the
// first stdout line.
func startModel(bin, script string) (*modelServer, error) {
	cmd := exec.Command(bin, "--script", script)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start scripted-model: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case url := <-lines:
		if !strings.HasPrefix(url, "http") {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("scripted-model printed %q, not a URL", url)
		}
		return &modelServer{cmd: cmd, url: url}, nil
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("scripted-model printed no URL within 10 s")
	}
}

func (m *modelServer) stop() {
	m.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { m.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		m.cmd.Process.Kill()
		<-done
	}
}

// installCopy writes a copy of bin to dst, flushes it to disk and drops it
// from the page cache, so the next run reads it from disk as a binary
// installed earlier does (after a reboot, or once the cache let it go).
// The same bytes peak several MiB higher when run straight from the
// linker's output: the linker writes through a memory mapping, the file's
// page-cache folios come out larger, and each page fault maps more of it.
// How a copy was written changes the folios too (large writes make large
// ones), so only the copy read back from disk gives a figure that does not
// depend on how the file got there. The benchmark reports both.
func installCopy(bin, dst string) (string, error) {
	// Streamed, not read whole: a child's peak RSS as the kernel reports
	// it includes the parent's resident set at the moment of exec.
	src, err := os.Open(bin)
	if err != nil {
		return "", fmt.Errorf("install copy: %w", err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return "", fmt.Errorf("install copy: %w", err)
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return "", fmt.Errorf("install copy: %w", err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("install copy: %w", err)
	}
	if err := dropFromCache(dst); err != nil {
		return "", fmt.Errorf("install copy: %w", err)
	}
	return dst, nil
}
