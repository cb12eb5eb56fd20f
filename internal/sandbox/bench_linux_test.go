package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The cost a confined command adds (bench/run sandbox): /bin/true
// directly; through the session's sandbox process (Start) with namespaces
// and without them (the fallback); through the launcher (Confine), with
// and without; and what a session start pays (New: the probe, and the
// sandbox process's start on the first command).
// TANDEM_BENCH_EXE names a tandem binary to launch through (bench/run
// builds one as users get it); default: this test binary.
func BenchmarkCommand(b *testing.B) {
	exe, err := benchExe()
	if err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	p := Policy{WriteRoots: []string{b.TempDir()}, TempDir: b.TempDir(), DenyRead: []string{filepath.Join(home, ".ssh")}}
	sb, err := New(p, exe)
	if err != nil {
		b.Skipf("sandbox unavailable: %v", err)
	}
	defer sb.Close()
	p.NoNamespaces = true
	fallback, _ := New(p, exe)
	defer fallback.Close()
	for _, c := range []struct {
		name  string
		sb    *Sandbox
		start bool
	}{{"direct", nil, false}, {"started", sb, true}, {"started-fallback", fallback, true},
		{"confined", sb, false}, {"fallback", fallback, false}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				if c.start {
					p, err := c.sb.Start(cmd)
					if err != nil {
						b.Fatal(err)
					}
					if ws, err := p.Wait(); err != nil || ws.ExitStatus() != 0 {
						b.Fatal(ws, err)
					}
					continue
				}
				if c.sb != nil {
					if err := c.sb.Confine(cmd); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSessionStart(b *testing.B) {
	exe, err := benchExe()
	if err != nil {
		b.Fatal(err)
	}
	p := Policy{WriteRoots: []string{b.TempDir()}}
	for b.Loop() {
		sb, err := New(p, exe)
		if err != nil {
			b.Skipf("sandbox unavailable: %v", err)
		}
		// The first command starts the session's sandbox process.
		proc, err := sb.Start(exec.Command("/bin/true"))
		if err != nil {
			b.Fatal(err)
		}
		proc.Wait()
		sb.Close()
	}
}

func benchExe() (string, error) {
	if e := os.Getenv("TANDEM_BENCH_EXE"); e != "" {
		return e, nil
	}
	return os.Executable()
}
