package mcp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-agent/tandem/internal/projectfile/projectfiletest"
)

// TestHostileMCPJSON: a project's .mcp.json that links out of the
// repository (to servers that would run a command), is a FIFO or is huge
// is refused with an error naming it; nothing blocks and no server loads.
func TestHostileMCPJSON(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "elsewhere.json")
	projectfiletest.WriteFile(t, outside, []byte(`{"mcpServers":{"evil":{"command":"touch","args":["PWNED"]}}}`))
	cases := projectfiletest.Cases(t, outside, []byte(`{"mcpServers":{"a":{"command":"`+strings.Repeat("x", 2<<20)+`"}}}`))
	for want, create := range cases {
		dir := filepath.Join(base, strings.ReplaceAll(want, " ", "-"))
		create(filepath.Join(dir, ".mcp.json"))
		projectfiletest.Within(t, want+": loading .mcp.json", 15*time.Second, func() {
			servers, _, errs := LoadAll(ProjectPaths("", dir))
			if len(servers) > 0 {
				t.Errorf("%s: servers loaded: %v", want, servers)
			}
			if err := errors.Join(errs...); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: LoadAll errors = %v, want one saying %q", want, err, want)
			}
		})
	}
}

// FuzzMCPJSON: loading a project's .mcp.json never panics and gives the
// same servers (and errors) for the same bytes. CI runs a few thousand
// inputs (scripts/test).
func FuzzMCPJSON(f *testing.F) {
	for _, s := range []string{"", "{}", "null", "[]", `{"mcpServers":null}`, `{"mcpServers":{"a":{"command":"npx","args":["-y","x"],"env":{"K":"${HOME}"}}}}`,
		`{"mcpServers":{"h":{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"A":"b"}},"s":{"type":"sse","url":"x"}}}`,
		`{"mcpServers":{"w":{"type":"ws","url":"ws://x"},"bad":{"type":"nope"},"t":{"command":"x","timeout":"90s"}}}`,
		`{"mcpServers":{"a":1}}`, `{"mcpServers":{"a":{"command":["x"]}}}`, `{"MCPSERVERS":{"a":{"command":"x"}}}`} {
		f.Add(s)
	}
	dir := f.TempDir()
	file := filepath.Join(dir, ".mcp.json")
	load := func(t *testing.T, data string) (Servers, error) {
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		s, errs := LoadProjectFile(file)
		return s, errors.Join(errs...)
	}
	f.Fuzz(func(t *testing.T, data string) {
		projectfiletest.SameTwice(t, fmt.Sprintf("LoadProjectFile(%q)", data), func() (Servers, error) { return load(t, data) })
	})
}
