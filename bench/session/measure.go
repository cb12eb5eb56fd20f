package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

// sample is one finished process (or baseline loop).
type sample struct {
	wall time.Duration
	// cpu is user+sys of the process and the children it waited for
	// (Linux wait4 accounts reaped descendants to their parent).
	cpu time.Duration
	// maxRSS is the peak resident set in bytes; on Linux the maximum over
	// the process and its reaped descendants.
	maxRSS int64
	// grepWall is, in a baseline, the part of wall spent in rg.
	grepWall time.Duration
}

// measure runs cmd to completion and returns its resource use.
func measure(cmd *exec.Cmd) (sample, error) {
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, err
	}
	return sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), maxRSS: maxRSS(cmd.ProcessState)}, nil
}

func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes on macOS
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux
}

// tandemEnv is the environment for a tandem run: a private home and the
// scripted server as the Anthropic endpoint.
func tandemEnv(home, url string) []string {
	return append(os.Environ(),
		"TANDEM_HOME="+home, "HOME="+home,
		"XDG_CONFIG_HOME=", "XDG_DATA_HOME=", "TANDEM_MODEL=",
		"ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=bench-key",
	)
}

// runSession runs one `tandem run` and checks it finished with wantTurns
// model steps.
func runSession(ctx context.Context, bin, work, home, url string, wantTurns int) (sample, error) {
	cmd := exec.CommandContext(ctx, bin, "run", "-p", "Look around the workspace.",
		"--output-format", "stream-json", "--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "trust")
	cmd.Dir = work
	cmd.Env = tandemEnv(home, url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = bytes.NewReader(nil)
	s, err := measure(cmd)
	if err != nil {
		return s, fmt.Errorf("tandem run: %w\nstderr:\n%s", err, tail(stderr.String()))
	}
	if err := checkResult(stdout.Bytes(), wantTurns); err != nil {
		return s, fmt.Errorf("%w\nstderr:\n%s", err, tail(stderr.String()))
	}
	return s, nil
}

// checkResult finds the result event and checks the turn succeeded with
// the expected number of model steps, so a broken run is never timed.
func checkResult(out []byte, wantTurns int) error {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var res struct {
		Type     string `json:"type"`
		IsError  bool   `json:"is_error"`
		NumTurns int    `json:"num_turns"`
		Error    string `json:"error"`
		Result   string `json:"result"`
	}
	found := false
	for sc.Scan() {
		var e = res
		e.Type = ""
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type == "result" {
			res, found = e, true
		}
	}
	switch {
	case !found:
		return fmt.Errorf("tandem printed no result event:\n%s", tail(string(out)))
	case res.IsError:
		return fmt.Errorf("tandem's turn failed: %s %s", res.Error, res.Result)
	case res.NumTurns != wantTurns:
		return fmt.Errorf("tandem took %d model steps, want %d", res.NumTurns, wantTurns)
	}
	return nil
}

// baseline does the session's tool work without tandem: the file read in
// this process, the same ripgrep invocation tandem's Grep makes, and the
// same command through bash, one after another.
func baseline(ctx context.Context, rg, bash, work string, calls []stepCalls) (sample, error) {
	var total sample
	start := time.Now()
	for _, c := range calls {
		if _, err := os.ReadFile(filepath.Join(work, c.readPath)); err != nil {
			return total, err
		}
		target := "."
		if c.grepPath != "" {
			target = c.grepPath
		}
		if rg != "" {
			grep := exec.CommandContext(ctx, rg, "--no-config", "--hidden", "--no-require-git", "--no-messages",
				"--glob", "!.git", "--case-sensitive", "--files-with-matches", "--null", "--regexp", c.grepPattern, "--", target)
			grep.Dir = work
			began := time.Now()
			s, err := measureAllowNoMatch(grep)
			if err != nil {
				return total, fmt.Errorf("baseline rg: %w", err)
			}
			total.grepWall += time.Since(began)
			total.add(s)
		}
		sh := exec.CommandContext(ctx, bash, "-c", c.bash)
		sh.Dir = work
		s, err := measure(sh)
		if err != nil {
			return total, fmt.Errorf("baseline bash %q: %w", c.bash, err)
		}
		total.add(s)
	}
	total.wall = time.Since(start)
	return total, nil
}

// measureAllowNoMatch treats rg's exit status 1 (no match) as success.
func measureAllowNoMatch(cmd *exec.Cmd) (sample, error) {
	s, err := measure(cmd)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return sample{cpu: ee.UserTime() + ee.SystemTime(), maxRSS: maxRSS(ee.ProcessState)}, nil
	}
	return s, err
}

func (s *sample) add(o sample) {
	s.cpu += o.cpu
	s.maxRSS = max(s.maxRSS, o.maxRSS)
}

// timeVersion runs `tandem --version` once.
func timeVersion(bin string) (sample, error) {
	cmd := exec.Command(bin, "--version")
	var out bytes.Buffer
	cmd.Stdout = &out
	s, err := measure(cmd)
	if err != nil {
		return s, fmt.Errorf("tandem --version: %w", err)
	}
	return s, nil
}

func tail(s string) string {
	const n = 2000
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
