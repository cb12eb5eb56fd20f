package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A sample project's tests pass inside the sandbox with the default
// profiles: go test, npm test, pytest (each skipped when the toolchain is
// not installed).
func TestToolchainsInside(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		files map[string]string
		argv  []string
	}{
		{"go", map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n",
			"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tif 1+1 != 2 {\n\t\tt.Fatal()\n\t}\n}\n"},
			[]string{"go", "test", "-count=1", "./..."}},
		{"npm", map[string]string{"package.json": `{"name":"p","version":"1.0.0","scripts":{"test":"node test.js"}}`,
			"test.js": `require("fs").writeFileSync(require("os").tmpdir()+"/t.txt","x"); console.log("tests pass")`},
			[]string{"npm", "test", "--silent"}},
		{"python3", map[string]string{"test_a.py": "def test_a():\n    assert 1 == 1\n"},
			[]string{"python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.argv[0]); err != nil {
				t.Skipf("%s not installed", c.argv[0])
			}
			if c.name == "python3" && exec.Command("python3", "-c", "import pytest").Run() != nil {
				t.Skip("pytest not installed")
			}
			proj := t.TempDir()
			for name, body := range c.files {
				os.WriteFile(filepath.Join(proj, name), []byte(body), 0o644)
			}
			p, err := Build(Input{Roots: []string{proj}, Home: home, TempDir: t.TempDir(),
				Secrets: []string{filepath.Join(home, ".ssh")}, Getenv: os.Getenv})
			if err != nil {
				t.Fatal(err)
			}
			sb, err := New(p, exe)
			if err != nil {
				t.Skipf("sandbox unavailable: %v", err)
			}
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			cmd.Dir = proj
			if err := sb.Confine(cmd); err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Contains(string(out), "FAIL") {
				t.Errorf("%v inside the sandbox: %v\n%s", c.argv, err, out)
			}
		})
	}
}
