package secrets

import (
	"strings"
	"testing"
)

// What moves out of the environment at start: the well-known names and
// every name that looks like a credential (a config's api_key_env is not
// read yet); ordinary variables stay where they are.
func TestHeldNamesAndEncoding(t *testing.T) {
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-1", "CORP_LLM_KEY=k2", "GITHUB_TOKEN=t3", "DB_PASSWORD=p4",
		"HOME=/h", "TERM=xterm", HandoverFDVar + "=9", "WEIRD=a=b"}
	keep, held := splitHeld(env)
	if got := strings.Join(keep, " "); got != "PATH=/bin HOME=/h TERM=xterm WEIRD=a=b" {
		t.Errorf("kept: %s", got)
	}
	got, err := decodeHeld(encodeHeld(append(held, "TANDEM_TOKEN=x=y")))
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"ANTHROPIC_API_KEY", "sk-1"}, {"CORP_LLM_KEY", "k2"}, {"GITHUB_TOKEN", "t3"}, {"DB_PASSWORD", "p4"}, {"TANDEM_TOKEN", "x=y"}}
	if len(got) != len(want) {
		t.Fatalf("decoded %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %v, want %v", i, got[i], want[i])
		}
	}
	if _, err := decodeHeld([]byte("no-equals\x00")); err == nil {
		t.Error("a malformed hand-over was accepted")
	}
}
