package prompt

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/tandem-agent/tandem/internal/permit"
)

// sectionFiles are the system prompt's parts, one file per section: the
// shared ones, one addendum per model family and one text per permission
// mode. They are templates over the tools offered in the request, so a
// section names only tools the model can call.
//
//go:embed sections
var sectionFiles embed.FS

// shared are the sections every family gets, in order.
var shared = []string{"intro", "work", "care", "tandem", "answer"}

// templates parses the sections once; a section that does not parse is a
// build mistake the tests catch.
var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"has":  func(string) bool { return false },
	"list": func(...string) string { return "" },
}).ParseFS(sectionFiles, "sections/*.md", "sections/family/*.md", "sections/mode/*.md"))

// render fills in one section for the tools offered.
func render(name string, tools []string) (string, error) {
	t := templates.Lookup(name + ".md")
	if t == nil {
		return "", fmt.Errorf("prompt section %s.md does not exist", name)
	}
	set := map[string]bool{}
	for _, n := range tools {
		set[n] = true
	}
	t, err := t.Clone()
	if err != nil {
		return "", err
	}
	t.Funcs(template.FuncMap{
		"has": func(n string) bool { return set[n] },
		// list joins the offered ones of names: "Read, Glob and Grep".
		"list": func(names ...string) string {
			var have []string
			for _, n := range names {
				if set[n] {
					have = append(have, n)
				}
			}
			if len(have) < 2 {
				return strings.Join(have, "")
			}
			return strings.Join(have[:len(have)-1], ", ") + " and " + have[len(have)-1]
		},
	})
	var buf bytes.Buffer
	if err := t.Execute(&buf, nil); err != nil {
		return "", fmt.Errorf("prompt section %s.md: %w", name, err)
	}
	return strings.TrimSpace(buf.String()), nil
}

// Section files are named by their base name (ParseFS does so): the
// folders only group them.

// modeSection is the file that describes a mode; unknown modes read as
// normal, as the permission engine does.
func modeSection(m permit.Mode) string {
	switch m {
	case permit.Explore, permit.AcceptEdits, permit.Trust, permit.DontAsk, permit.AskEdits:
		return string(m)
	}
	return string(permit.Normal)
}
