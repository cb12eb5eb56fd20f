package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// `tandem prompt show` prints exactly what `tandem run -p` sends first:
// the same system blocks and the same tools, here in explore mode, where
// the edit tools are not offered and the prompt says the mode.
func TestE2EPromptShowIsWhatRunSends(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Fallback: &scripted.Step{Text: "ok"}})
	mustSucceed(t, x.RunStream("hi", "--permission-mode", "explore"))
	var sent struct {
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(x.srv.MainRequests()[0].RawBody, &sent); err != nil {
		t.Fatal(err)
	}
	r := x.Run("prompt", "show", "--json", "--model", "anthropic/claude-sonnet-5-5", "--mode", "explore", "--headless")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var shown struct {
		System []string `json:"system"`
		Tools  []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
		NotOffered []struct{ Name, Reason string } `json:"not_offered"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &shown); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	var sentSystem []string
	for _, b := range sent.System {
		sentSystem = append(sentSystem, b.Text)
	}
	if !slices.Equal(sentSystem, shown.System) {
		t.Errorf("system prompt differs:\nsent  %q\nshown %q", sentSystem, shown.System)
	}
	if !strings.Contains(strings.Join(shown.System, "\n"), "explore mode") {
		t.Errorf("the prompt does not say explore mode:\n%s", strings.Join(shown.System, "\n"))
	}
	if len(sent.Tools) != len(shown.Tools) {
		t.Fatalf("sent %d tools, shown %d", len(sent.Tools), len(shown.Tools))
	}
	for i, tl := range sent.Tools {
		if tl.Name != shown.Tools[i].Name || tl.Description != shown.Tools[i].Description {
			t.Errorf("tool %d: sent %s, shown %s (or their descriptions differ)", i, tl.Name, shown.Tools[i].Name)
		}
		if tl.Name == "Edit" || tl.Name == "Write" || tl.Name == "MultiEdit" {
			t.Errorf("explore mode offered %s", tl.Name)
		}
	}
	if !slices.ContainsFunc(shown.NotOffered, func(l struct{ Name, Reason string }) bool {
		return l.Name == "Edit" && strings.Contains(l.Reason, "explore")
	}) {
		t.Errorf("not_offered does not say why Edit is missing: %+v", shown.NotOffered)
	}
}
