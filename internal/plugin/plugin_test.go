package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/testfiles"
)

func TestCheckNameRefusesPaths(t *testing.T) {
	for _, bad := range []string{"", "..", "../x", "a/b", ".hidden", "a b", "a..b", strings.Repeat("x", 65)} {
		if CheckName("plugin", bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, good := range []string{"greeter", "my-plugin", "v1.2_x"} {
		if err := CheckName("plugin", good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	if _, err := ParseID("x@../m"); err == nil {
		t.Error("a marketplace name with a path was accepted")
	}
}

// A plugin's parts are found; a manifest path that leaves the folder and
// a bad hooks file are warnings, and the other parts still load;
// ${CLAUDE_PLUGIN_ROOT} becomes the folder in hooks and MCP servers.
func TestLoadParts(t *testing.T) {
	dir := t.TempDir()
	testfiles.Tree(t, dir, map[string]string{
		ManifestFile:         `{"name": "p", "commands": ["./extra/one.md", "../outside"], "mcpServers": {"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/srv", "args": ["x"]}}}`,
		"commands/a.md":      "a",
		"extra/one.md":       "one",
		"hooks/hooks.json":   `{"hooks": {"NoSuchEvent": []}}`,
		"skills/s/SKILL.md":  "---\nname: s\ndescription: d\n---\nbody",
		"output-styles/x.md": "x",
		"agents/reviewer.md": "---\ndescription: r\n---\nr",
	})
	p, err := Load(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Commands) != 2 || len(p.Skills) != 1 || len(p.Agents) != 1 || len(p.OutputStyles) != 1 {
		t.Errorf("parts: %+v", p)
	}
	w := strings.Join(p.Warnings, "\n")
	if !strings.Contains(w, "leaves the plugin folder") || !strings.Contains(w, "NoSuchEvent") {
		t.Errorf("warnings: %s", w)
	}
	srv, ok := p.MCP["plugin_p_srv"]
	if !ok || srv.Command != filepath.Join(p.Dir, "bin", "srv") || srv.Env[RootVar] != p.Dir {
		t.Errorf("MCP: %+v", p.MCP)
	}
}

func TestLoadBrokenManifest(t *testing.T) {
	dir := t.TempDir()
	testfiles.Tree(t, dir, map[string]string{ManifestFile: `{"name": "../evil"}`})
	if _, err := Load(dir, "test"); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Errorf("err = %v", err)
	}
	fifoDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(fifoDir, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(fifoDir, ManifestFile)); err != nil {
		t.Skip(err)
	}
	if _, err := Load(fifoDir, "test"); err == nil {
		t.Error("a FIFO manifest was read")
	}
}
