package permission

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/sandbox"
	"github.com/tandem-agent/tandem/internal/secretpaths"
	"github.com/tandem-agent/tandem/internal/testfiles"
)

// The corpus the engine is tested on (the command table and the hostile
// probes), run for real with the sandbox on as trust mode would run it
// (everything, whatever the verdict): the kernel lets no command write
// outside the workspace and its temporary folder, and no secret of the
// home folder reaches a command's output or the workspace.
func TestCorpusInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ~200 real commands (npm install, go build...): about two minutes")
	}
	if os.Getuid() == 0 {
		// The corpus holds `rm /etc/passwd`, `date -s`, `hostname evil`:
		// as root, a sandbox that failed to confine would harm the machine
		// itself. So root runs it as nobody, whom the kernel stops anyway.
		out, err := testfiles.AsNobody(t, "^TestCorpusInSandbox$")
		if err != nil || !strings.Contains(out, "--- PASS: TestCorpusInSandbox") {
			t.Fatalf("as nobody: %v\n%s", err, out)
		}
		return
	}
	root := t.TempDir()
	home, work, tmp := filepath.Join(root, "home"), filepath.Join(root, "work"), filepath.Join(root, "tmp")
	const marker = "SECRET-MARKER-7f3a"
	for rel, body := range map[string]string{
		".ssh/id_rsa": marker, ".ssh/id_ed25519": marker, ".aws/credentials": "password=" + marker, ".netrc": marker,
		".pgpass": marker, ".env": marker, ".bashrc": "# rc\n", ".claude/settings.json": "{}",
		"notes.txt": "notes",
	} {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(body), 0o600)
	}
	for rel, body := range map[string]string{
		"README.md": "readme", "main.go": "package main\n", "file": "foo\n", "f": "a\n", "a": "a", "b": "b",
		"file.txt": "x", "list": "x\n", "evil.md": "x", "fix.diff": "", "gen.py": "", "script.sh": "echo\n",
		"package.json": `{"name":"x"}`, ".env.example": "A=1", "x/keep": "x",
	} {
		p := filepath.Join(work, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	os.MkdirAll(tmp, 0o700)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Policy{WriteRoots: []string{work}, TempDir: tmp, DenyRead: secretpaths.HomePaths(home)}, exe)
	if err != nil {
		t.Skipf("sandbox unavailable: %v", err)
	}
	// A canary first: should the sandbox not hold, stop before the corpus.
	canary := exec.Command("sh", "-c", "echo x > ../canary")
	canary.Dir, canary.Env = work, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	if err := sb.Confine(canary); err != nil {
		t.Fatal(err)
	}
	canary.Run()
	if _, err := os.Stat(filepath.Join(root, "canary")); err == nil {
		t.Fatal("the sandbox let a write outside the workspace through; the corpus was not run")
	}
	before := snapshot(t, root, work, tmp)

	cases := append(shellCommandTable(), hostileShellCommands()...)
	for _, c := range cases {
		if c.cmd == "rm -fr /" {
			// What it may remove (the workspace, temp, the private
			// /dev/shm) says nothing the rest of the corpus does not,
			// and the fallback's /dev/shm is the machine's.
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // `while true`, `tail -f`
		// ulimit -f: `dd if=/dev/zero` must not fill the disk.
		cmd := exec.CommandContext(ctx, "sh", "-c", "ulimit -f 2048; "+c.cmd)
		cmd.Dir = work
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "FILE=" + filepath.Join(root, "file-var.txt")}
		if err := sb.Confine(cmd); err != nil {
			t.Fatal(err)
		}
		out, _ := cmd.CombinedOutput()
		cancel()
		if strings.Contains(string(out), marker) {
			t.Errorf("%q read a secret: %q", c.cmd, out)
		}
	}

	after := snapshot(t, root, work, tmp)
	for p, v := range after {
		if before[p] != v {
			t.Errorf("changed outside the workspace: %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("removed outside the workspace: %s", p)
		}
	}
	filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), marker) {
				t.Errorf("a secret was copied into the workspace: %s", p)
			}
		}
		return nil
	})
}

// snapshot maps every entry under root, except the workspace and the
// temporary folder, to its size, mode and modification time.
func snapshot(t *testing.T, root string, skip ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		for _, s := range skip {
			if p == s {
				return filepath.SkipDir
			}
		}
		if info, err := d.Info(); err == nil {
			out[p] = fmt.Sprint(info.Mode(), info.ModTime(), info.Size())
		}
		return nil
	})
	return out
}
