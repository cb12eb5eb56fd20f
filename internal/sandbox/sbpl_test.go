package sandbox

import (
	"strings"
	"testing"
)

func TestSBPL(t *testing.T) {
	p := Policy{WriteRoots: []string{"/Users/u/proj"}, TempDir: "/private/tmp/t", ReadOnly: []string{"/Users/u/proj/.git/hooks"},
		DenyRead: []string{"/Users/u/.ssh", `/Users/u/we"ird`}}
	got := SBPL(p)
	for _, want := range []string{
		"(version 1)\n(allow default)\n(deny file-write*)\n",
		`(subpath "/Users/u/proj")`, `(subpath "/private/tmp/t")`, `(subpath "/dev/null")`,
		"(deny file-write*\n  (subpath \"/Users/u/proj/.git/hooks\"))",
		"(deny file-read* file-write*\n  (subpath \"/Users/u/.ssh\")\n  (subpath \"/Users/u/we\\\"ird\"))",
		"(deny network*)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %q:\n%s", want, got)
		}
	}
	// Later rules win in SBPL: the secret paths and read-only places come
	// after the writable folders, the network allowance after its denial.
	if strings.Index(got, "(allow file-write*") > strings.Index(got, "(deny file-read* file-write*") ||
		strings.Index(got, "(deny network*)") > strings.Index(got, "(allow network-outbound") {
		t.Errorf("rules out of order:\n%s", got)
	}
}
