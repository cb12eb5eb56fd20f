package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tandem-agent/tandem/internal/scripted"
)

// A repository's skill, command and agent files that are symbolic links to
// the user's SSH key (git keeps links: `ln -s ../../../../.ssh/id_rsa
// .claude/skills/k/SKILL.md`) are refused with a warning naming each; no
// byte of the key reaches the provider.
func TestE2ESymlinkedExtensionFilesStayLocal(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{scripted.TextStep("hello")}})
	const keyData = "E2E-SECRET-KEY-DATA-7f3a"
	key := filepath.Join(x.Home, ".ssh", "id_rsa")
	writeAt(t, key, "-----BEGIN OPENSSH PRIVATE KEY-----\n"+keyData+"\n-----END OPENSSH PRIVATE KEY-----\n")
	// The workspace and the home are siblings: work/<4 folders deep>.
	links := map[string]string{
		".claude/skills/k/SKILL.md":  "../../../../home/.ssh/id_rsa",
		".agents/skills/k2/SKILL.md": "../../../../home/.ssh/id_rsa",
		".claude/commands/key.md":    "../../../home/.ssh/id_rsa",
		".claude/agents/key.md":      "../../../home/.ssh/id_rsa",
	}
	for rel, target := range links {
		p := filepath.Join(x.Work, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	r := x.RunStream("hi")
	mustSucceed(t, r)
	reqs := x.srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the scripted server")
	}
	for i, req := range reqs {
		if strings.Contains(string(req.RawBody), keyData) {
			t.Errorf("request %d carries the SSH key", i+1)
		}
	}
	for rel := range links {
		if !strings.Contains(r.Stderr, filepath.Join(x.Work, rel)+" links to "+key+", outside the repository") {
			t.Errorf("no warning names %s:\n%s", rel, r.Stderr)
		}
	}
}

// FIFOs as a skill, a command, an agent and a .gitignore neither hang a
// turn nor `tandem skills list` (each run has a 60 s deadline): each is
// skipped with a warning naming it.
func TestE2EFIFOExtensionFilesDoNotBlock(t *testing.T) {
	t.Parallel()
	x := newE2E(t, scripted.Script{Steps: []scripted.Step{
		scripted.ToolStep(scripted.CallID("g1", "Glob", map[string]any{"pattern": "**/*.txt"})),
		scripted.TextStep("hello"),
	}})
	x.WriteFile("a.txt", "a\n")
	fifos := []string{".claude/skills/f/SKILL.md", ".claude/commands/f.md", ".claude/agents/f.md", ".gitignore"}
	for _, rel := range fifos {
		p := filepath.Join(x.Work, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip(err)
		}
	}
	r := x.RunStream("hi")
	mustSucceed(t, r)
	if res := toolResults(r)["g1"]; res.IsError || !strings.Contains(res.Output, "a.txt") {
		t.Errorf("Glob beside a FIFO .gitignore: %+v", res)
	}
	list := x.Run("skills", "list")
	if list.Code != 0 {
		t.Fatalf("skills list: exit %d\n%s", list.Code, list.Stderr)
	}
	for _, rel := range fifos[:3] {
		for what, out := range map[string]string{"run": r.Stderr, "skills list": list.Stdout + list.Stderr} {
			if !strings.Contains(out, filepath.Join(x.Work, rel)+" is not a regular file (named pipe (FIFO))") {
				t.Errorf("%s: no warning names the FIFO %s:\n%s", what, rel, out)
			}
		}
	}
}
