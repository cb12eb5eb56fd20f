package prompt

import (
	"strings"
	"testing"
)

// A style without keep-coding instructions replaces the work and care
// sections; one with them is added; "default" changes nothing.
func TestStyleSections(t *testing.T) {
	names := func(b Builder) string {
		var out []string
		for _, s := range b.Sections(Request{Cwd: t.TempDir(), Env: Environment{OS: "linux"}}) {
			out = append(out, s.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(Builder{Style: &Style{Name: "Default"}}); strings.Contains(got, "output style") || !strings.Contains(got, "work") {
		t.Errorf("default: %s", got)
	}
	if got := names(Builder{Style: &Style{Name: "Short", Prompt: "be short"}}); !strings.Contains(got, "output style: Short") || strings.Contains(got, "work") || strings.Contains(got, "care") {
		t.Errorf("no coding: %s", got)
	}
	if got := names(Builder{Style: &Style{Name: "Ex", Prompt: "explain", KeepCoding: true}}); !strings.Contains(got, "output style: Ex") || !strings.Contains(got, "work") {
		t.Errorf("keep coding: %s", got)
	}
}
