package event_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/message"
)

// docPath is docs/events.md seen from this package's folder.
const docPath = "../../docs/events.md"

// example is one ```json block of the document.
type example struct {
	line    int    // line of the opening fence, for messages
	section string // the "### " heading it sits under
	body    string
}

// extractExamples returns every ```json fenced block of a markdown text.
func extractExamples(md string) ([]example, error) {
	var out []example
	var cur *example
	section := ""
	sc := bufio.NewScanner(strings.NewReader(md))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.body += line + "\n"
		case trimmed == "```json":
			cur = &example{line: n, section: section}
		case strings.HasPrefix(line, "### "):
			section = strings.TrimSpace(strings.TrimPrefix(line, "### "))
		case strings.HasPrefix(line, "## "):
			section = ""
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: ```json block is never closed", cur.line)
	}
	return out, nil
}

func TestExtractExamples(t *testing.T) {
	tests := []struct {
		name     string
		md       string
		want     []example
		wantErrs bool
	}{
		{name: "none", md: "# t\n\ntext\n```go\nx := 1\n```\n"},
		{
			name: "two blocks under headings",
			md:   "## Types\n### text\nsee ```json inline\n```json\n{\"a\":1}\n```\n### done\n```json\n{}\n```\n## Other\n```json\n[]\n```\n",
			want: []example{
				{line: 4, section: "text", body: "{\"a\":1}\n"},
				{line: 8, section: "done", body: "{}\n"},
				{line: 12, section: "", body: "[]\n"},
			},
		},
		{name: "unclosed", md: "```json\n{}\n", wantErrs: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractExamples(tt.md)
			if (err != nil) != tt.wantErrs {
				t.Fatalf("err = %v, want error %v", err, tt.wantErrs)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// declaredConsts parses event.go and returns the values of the constants of
// type Type and of the untyped Subtype* constants.
func declaredConsts(t *testing.T) (types, subtypes map[string]string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "event.go", nil, 0)
	if err != nil {
		t.Fatalf("parse event.go: %v", err)
	}
	types, subtypes = map[string]string{}, map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			typ := ""
			if id, ok := vs.Type.(*ast.Ident); ok {
				typ = id.Name
			}
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					t.Fatalf("event.go: constant %s has no explicit value; give every event constant its string", name.Name)
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatalf("event.go: constant %s: %v", name.Name, err)
				}
				switch {
				case typ == "Type":
					types[name.Name] = v
				case strings.HasPrefix(name.Name, "Subtype"):
					subtypes[name.Name] = v
				}
			}
		}
	}
	if len(types) == 0 || len(subtypes) == 0 {
		t.Fatalf("found %d Type and %d Subtype constants in event.go; the parser no longer matches the file", len(types), len(subtypes))
	}
	return types, subtypes
}

func readDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("read the event documentation: %v", err)
	}
	return string(b)
}

// TestDocExamples keeps docs/events.md exactly what tandem emits: each
// example decodes with no unknown field and re-encodes to the same JSON.
func TestDocExamples(t *testing.T) {
	types, _ := declaredConsts(t)
	known := map[event.Type]bool{}
	for _, v := range types {
		known[event.Type(v)] = true
	}
	exs, err := extractExamples(readDoc(t))
	if err != nil {
		t.Fatalf("%s: %v", docPath, err)
	}
	if len(exs) == 0 {
		t.Fatalf("%s has no ```json examples", docPath)
	}
	seen := map[event.Type]int{}
	for _, ex := range exs {
		ev, err := checkExample(ex, known)
		if err != nil {
			t.Errorf("%s:%d: %v", docPath, ex.line, err)
		}
		if known[ev.Type] {
			seen[ev.Type]++ // a wrong example is reported above, not as a missing one
		}
	}
	for name, v := range types {
		if seen[event.Type(v)] == 0 {
			t.Errorf("%s has no example of event.%s (%q): add a ```json block under \"### %s\"", docPath, name, v, v)
		}
	}
}

// checkExample validates one example and returns the decoded event.
func checkExample(ex example, known map[event.Type]bool) (event.Event, error) {
	dec := json.NewDecoder(strings.NewReader(ex.body))
	dec.DisallowUnknownFields()
	var ev event.Event
	if err := dec.Decode(&ev); err != nil {
		return ev, fmt.Errorf("does not decode into event.Event: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ev, errors.New("holds more than one JSON value; give each example its own block")
	}
	if !known[ev.Type] {
		return ev, fmt.Errorf("type %q is not an event.Type constant", ev.Type)
	}
	if ex.section != "" && ex.section != string(ev.Type) {
		return ev, fmt.Errorf("a %q example sits under the heading %q", ev.Type, ex.section)
	}
	if ev.SessionID == "" || ev.Seq <= 0 || ev.Time.IsZero() {
		return ev, errors.New("the envelope is incomplete: session_id, a positive seq and ts must all be set")
	}
	again, err := json.Marshal(ev)
	if err != nil {
		return ev, fmt.Errorf("re-encode: %w", err)
	}
	var want, got any
	if err := json.Unmarshal([]byte(ex.body), &want); err != nil {
		return ev, err
	}
	if err := json.Unmarshal(again, &got); err != nil {
		return ev, err
	}
	if !reflect.DeepEqual(want, got) {
		var compact bytes.Buffer
		_ = json.Compact(&compact, []byte(ex.body))
		return ev, fmt.Errorf("is not what tandem emits (fields with zero values are omitted, names and values must match):\n doc:  %s\n emit: %s", compact.String(), again)
	}
	return ev, nil
}

// TestDocNamesEverything checks that the document mentions every subtype
// and every JSON field name, so a new field cannot go undocumented.
func TestDocNamesEverything(t *testing.T) {
	doc := readDoc(t)
	_, subtypes := declaredConsts(t)
	for name, v := range subtypes {
		if !strings.Contains(doc, "`"+v+"`") || !strings.Contains(doc, name) {
			t.Errorf("%s does not document result subtype %s (`%s`)", docPath, name, v)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[event.Event](), reflect.TypeFor[message.Usage](),
		reflect.TypeFor[event.Todo](), reflect.TypeFor[event.Denial]()} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("%s does not mention field `%s` (%s.%s)", docPath, name, typ.Name(), f.Name)
			}
		}
	}
}
