package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The cost a confined command adds (bench/run sandbox): /bin/true
// directly, through the launcher with namespaces, and through the
// fallback without them; and what a session start pays (New: the probe).
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
	p.NoNamespaces = true
	fallback, _ := New(p, exe)
	for _, c := range []struct {
		name string
		sb   *Sandbox
	}{{"direct", nil}, {"confined", sb}, {"fallback", fallback}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("/bin/true")
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
		if _, err := New(p, exe); err != nil {
			b.Skipf("sandbox unavailable: %v", err)
		}
	}
}

func benchExe() (string, error) {
	if e := os.Getenv("TANDEM_BENCH_EXE"); e != "" {
		return e, nil
	}
	return os.Executable()
}
