package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/scripted"
)

func TestEmbedRunsAPromptWithItsTool(t *testing.T) {
	srv := scripted.New(scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("c1", "count_lines", map[string]any{"path": "a.txt"})),
		scripted.ToolStep(scripted.CallID("c2", "count_lines", map[string]any{"path": "../outside.txt"})),
		scripted.TextStep("a.txt has three lines."),
	}})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "outside.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "k", "HOME": root}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out strings.Builder
	err = run(ctx, []string{"-dir", work, "-home", filepath.Join(root, "home"), "count the lines of a.txt"},
		strings.NewReader(""), &out, func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{`> count_lines {"path":"a.txt"}`, "< a.txt has 3 lines", "a.txt has three lines.", "[success in 3 steps"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "outside.txt has") {
		t.Errorf("the tool read outside the folder:\n%s", got)
	}
}
