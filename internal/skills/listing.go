package skills

import (
	"fmt"
	"strings"
)

// Listing budget. Claude Code cuts a skill's description plus when_to_use
// at 1,536 characters; the whole list gets DefaultListingBudget characters
// (about 2,000 tokens) unless configured.
const (
	MaxEntryChars        = 1536
	DefaultListingBudget = 8000
	shortEntryChars      = 200
)

// Entry is one line of a listing: a name and what it is for.
type Entry struct {
	Name string
	Text string
}

// Listing renders entries as "- name: text" lines within budget
// characters. The rule for what is cut, in order, until the list fits:
//  1. every text is cut to MaxEntryChars;
//  2. texts are cut to 200 characters;
//  3. the entries that still do not fit are listed by name only;
//  4. names that do not fit are counted in a last line ("… and N more").
//
// Entries keep their order, so put the more important first.
func Listing(entries []Entry, budget int) string {
	if budget <= 0 {
		budget = DefaultListingBudget
	}
	render := func(limit int) []string {
		out := make([]string, len(entries))
		for i, e := range entries {
			out[i] = fmt.Sprintf("- %s: %s", e.Name, truncate(oneLine(e.Text), limit))
		}
		return out
	}
	for _, limit := range []int{MaxEntryChars, shortEntryChars} {
		if lines := render(limit); size(lines) <= budget {
			return strings.Join(lines, "\n")
		}
	}
	lines := render(shortEntryChars)
	// Keep room for the closing "… and N more" line.
	room := budget - 80
	var out []string
	used := 0
	for i, l := range lines {
		if used+len(l)+1 > room {
			l = "- " + entries[i].Name
		}
		if used+len(l)+1 > room {
			out = append(out, fmt.Sprintf("… and %d more (not listed for lack of room; call them by name)", len(lines)-i))
			break
		}
		out = append(out, l)
		used += len(l) + 1
	}
	return strings.Join(out, "\n")
}

func size(lines []string) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// SkillEntries are the model-visible skills as listing entries, project
// skills first (they are the most specific to the task at hand).
func SkillEntries(skills []*Skill) []Entry {
	var out []Entry
	for _, pass := range []bool{true, false} {
		for _, s := range skills {
			if (s.Scope == ScopeProject) != pass {
				continue
			}
			text := s.Description
			if s.WhenToUse != "" {
				text += " " + s.WhenToUse
			}
			out = append(out, Entry{Name: s.Name, Text: text})
		}
	}
	return out
}
