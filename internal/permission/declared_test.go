package permission

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/tool"
)

// scribble is a custom tool named neither Write nor Edit that declares it
// writes the file its "target" names, and previews the line it appends.
type scribble struct{}

func (scribble) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	return tool.PathField("target", true).FileAccess(input)
}

func (scribble) PreviewWrite(input json.RawMessage, path, current string) (string, error) {
	line, err := tool.StringField(input, "line")
	return "--- " + path + "\n+" + line + "\n", err
}

// customFiles declares Scribble (writes) and Peek (reads "source").
func customFiles(name string) (tool.FileAccessor, bool) {
	switch name {
	case "Scribble":
		return scribble{}, true
	case "Peek":
		return tool.PathField("source", false), true
	}
	return nil, false
}

// Edit and Read cover tools by what they declare, not by name: a custom
// tool declaring a write is taken away by --disallowedTools Edit and
// denied by an Edit(...) rule; one declaring a read by Read.
func TestEditAndReadCoverDeclaredTools(t *testing.T) {
	cases := []struct {
		entry            string
		scribble, peek   bool // offered
		readTool, editTo bool
	}{
		{"Edit", false, true, true, false},
		{"Read", true, false, false, true},
	}
	for _, c := range cases {
		f := NewToolFilter(nil, []string{c.entry}).WithTools(withBuiltins(customFiles))
		if f.Offered("Scribble") != c.scribble || f.Offered("Peek") != c.peek || f.Offered("Read") != c.readTool || f.Offered("Edit") != c.editTo {
			t.Errorf("--disallowedTools %s: Scribble %v Peek %v Read %v Edit %v", c.entry,
				f.Offered("Scribble"), f.Offered("Peek"), f.Offered("Read"), f.Offered("Edit"))
		}
		rules, err := ParseToolFlags([]string{c.entry}, ActionDeny)
		if err != nil {
			t.Fatal(err)
		}
		e := NewEngine(EngineOptions{WorkDir: t.TempDir(), Mode: Trust, FlagRules: rules, Tools: withBuiltins(customFiles)})
		for _, name := range []string{"Scribble", "Peek"} {
			d := check(t, e, name, map[string]string{"target": "a.txt", "source": "a.txt"})
			if denied := d.Behavior == Deny; denied == f.Offered(name) {
				t.Errorf("--disallowedTools %s: %s offered=%v, engine denied=%v (%s)", c.entry, name, f.Offered(name), denied, d.Message)
			}
		}
	}
	// Without the declaration the name alone is not a file tool.
	if !NewToolFilter(nil, []string{"Edit"}).Offered("Scribble") {
		t.Error("an undeclared Scribble must stay offered")
	}
	// A pattern rule judges the declared path.
	work := t.TempDir()
	e := NewEngine(EngineOptions{WorkDir: work, Mode: Trust, Tools: withBuiltins(customFiles),
		UserRules: []Rule{{Permission: "Edit", Pattern: "notes/**", Action: ActionDeny}}})
	if d := check(t, e, "Scribble", map[string]string{"target": "notes/x.md"}); d.Behavior != Deny {
		t.Errorf("Edit(notes/**) must deny Scribble writing notes/x.md: %+v", d)
	}
	if d := check(t, e, "Scribble", map[string]string{"target": "src/x.md"}); d.Behavior != Allow {
		t.Errorf("Scribble writing src/x.md: %+v", d)
	}
}

// The question for a custom tool's write names the declared path and
// carries the tool's own preview.
func TestQuestionFromDeclaration(t *testing.T) {
	work, _ := filepath.EvalSymlinks(t.TempDir())
	writeFile(t, filepath.Join(work, "log.txt"), "old\n")
	a := &recordingAsker{}
	e := NewEngine(EngineOptions{WorkDir: work, Mode: AskEdits, Asker: a, Tools: withBuiltins(customFiles)})
	check(t, e, "Scribble", map[string]string{"target": "log.txt", "line": "hello"})
	check(t, e, "Scribble", map[string]string{"target": "new.txt", "line": "hi"})
	if len(a.asked) != 2 {
		t.Fatalf("asked %d times", len(a.asked))
	}
	if q := a.asked[0]; q.Summary != "Edit log.txt" || q.Diff != "--- "+filepath.Join(work, "log.txt")+"\n+hello\n" {
		t.Errorf("existing file: %q %q", q.Summary, q.Diff)
	}
	if q := a.asked[1]; q.Summary != "Create new.txt" || !strings.Contains(q.Diff, "+hi") {
		t.Errorf("new file: %q %q", q.Summary, q.Diff)
	}
	// A declared read is summarized as one.
	e = NewEngine(EngineOptions{WorkDir: work, Asker: a, Tools: withBuiltins(customFiles)})
	check(t, e, "Peek", map[string]string{"source": "/etc/hostname"})
	if q := a.asked[len(a.asked)-1]; q.Summary != "Read /etc/hostname" || q.Diff != "" {
		t.Errorf("read: %q %q", q.Summary, q.Diff)
	}
}

// CallFromText gives the path under every key a declaration may read it
// from, so `why NotebookEdit(x)` judges x whatever the tool's key.
func TestCallFromTextServesEveryDeclaration(t *testing.T) {
	req := CallFromText("Scribble(notes/a.md)")
	e := NewEngine(EngineOptions{WorkDir: t.TempDir(), Tools: withBuiltins(func(name string) (tool.FileAccessor, bool) {
		return tool.PathField("notebook_path", true), name == "Scribble"
	}), UserRules: []Rule{{Permission: "Edit", Pattern: "notes/**", Action: ActionDeny}}})
	if x := e.Explain(req); req.Tool != "Scribble" || x.Action != ActionDeny {
		t.Errorf("%s %s: %+v", req.Tool, req.Input, x)
	}
}
