package prompt

import "strings"

// Style is an output style (Claude Code's): text that changes how the
// model answers. Without KeepCoding it replaces tandem's software
// engineering sections (work, care), as a custom style's
// keep-coding-instructions: false does in Claude Code; with it, it is
// added to them.
type Style struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Prompt      string `json:"-"`
	KeepCoding  bool   `json:"keep_coding_instructions"`
	// Source is where it came from: "builtin", a file, or a plugin.
	Source string `json:"source"`
	Plugin string `json:"plugin,omitempty"`
}

// DefaultStyle is the name of the style that changes nothing.
const DefaultStyle = "default"

// IsDefault reports whether s leaves the prompt as it is.
func (s *Style) IsDefault() bool { return s == nil || strings.EqualFold(s.Name, DefaultStyle) }

// codingSections are the sections a style without keep-coding
// instructions leaves out.
var codingSections = map[string]bool{"work": true, "care": true}

// styleSection is the style's own section.
func styleSection(s *Style) Section {
	return Section{Block: 0, Name: "output style: " + s.Name, Text: "# Output Style: " + s.Name + "\n\n" + strings.TrimSpace(s.Prompt)}
}
