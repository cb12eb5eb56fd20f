package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// tandem's own server token grants full control of `tandem serve`: reading
// it is treated like reading a credential file (see the .env cases in
// table_test.go), whichever spelling or tool
// names it, in the workspace (tandem run in the home folder) or outside it.
func TestTandemSecretFilesAreCredentials(t *testing.T) {
	work := t.TempDir()
	home := work // the common case where the data folder is inside the workspace
	data := filepath.Join(work, ".local", "share", "tandem")
	os.MkdirAll(data, 0o700)
	token := filepath.Join(data, "server-token")
	os.WriteFile(token, []byte("secret-token-value-0123456789\n"), 0o600)
	os.Symlink(token, filepath.Join(work, "tok-link"))
	outsideData := t.TempDir()
	outsideToken := filepath.Join(outsideData, "server-token")
	os.WriteFile(outsideToken, []byte("x\n"), 0o600)
	secrets := []string{token, outsideToken}
	cases := []struct {
		tool  string
		input map[string]any
		want  string // Explore, Normal, Trust
	}{
		{"Read", map[string]any{"file_path": token}, "DQA"},
		{"Read", map[string]any{"file_path": ".local/share/tandem/server-token"}, "DQA"},
		{"Read", map[string]any{"file_path": filepath.Join(work, "tok-link")}, "DQA"},
		{"Read", map[string]any{"file_path": filepath.Join(work, ".local", "share", "tandem", ".", "server-token")}, "DQA"},
		// As for `cat .env`: a shell read of a credential asks even in trust.
		{"Bash", map[string]any{"command": "cat " + token}, "DQQ"},
		{"Bash", map[string]any{"command": "cat ~/.local/share/tandem/server-token"}, "DQQ"},
		{"Bash", map[string]any{"command": "head -1 < .local/share/tandem/server-token"}, "DQQ"},
		{"Bash", map[string]any{"command": "cat " + outsideToken}, "DQQ"},
		{"Bash", map[string]any{"command": "cat " + filepath.Join(data, "other")}, "AAA"},
		{"Read", map[string]any{"file_path": filepath.Join(data, "other")}, "AAA"},
	}
	for _, tc := range cases {
		for i, m := range []Mode{Explore, Normal, Trust} {
			a := &recordingAsker{}
			e := NewEngine(EngineOptions{Tools: builtinFiles, Mode: m, WorkDir: work, HomeDir: home, Asker: a, SecretFiles: secrets})
			got, d := verdictOf(t, e, a, tc.tool, tc.input)
			if want := string(tc.want[i]); got != want {
				t.Errorf("%s %v in %s: got %s, want %s (%q)", tc.tool, tc.input, m, got, want, d.Message)
			}
		}
	}
}
