package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A stream-json stdin line over 64 MiB is dropped with an error result for
// it, the messages after it still run, and the exit code is not 0.
func TestClaudeProtocolStdinLineTooLong(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("after the long line")}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	user := func(text string) string {
		b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
		return string(b) + "\n"
	}
	long := user(strings.Repeat("x", 65<<20))
	cmd := x.Command(ctx, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	cmd.Stdin = io.MultiReader(strings.NewReader(long), strings.NewReader(user("hello")))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !(err != nil && errors.As(err, &ee) && ee.ExitCode() != 0) {
		t.Errorf("exit: %v (want a non-zero exit)\nstderr:\n%s", err, stderr.String())
	}
	var results []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "result" {
			results = append(results, m)
		}
	}
	if len(results) != 2 {
		t.Fatalf("results: %v\nstderr:\n%s", results, stderr.String())
	}
	if results[0]["is_error"] != true || !strings.Contains(strings.Join(toStrings(results[0]["errors"]), " "), "64 MiB") {
		t.Errorf("the long line's result: %v", results[0])
	}
	if results[1]["result"] != "after the long line" {
		t.Errorf("the next message's result: %v", results[1])
	}
}

func toStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, s := range a {
			out = append(out, s.(string))
		}
	}
	return out
}
