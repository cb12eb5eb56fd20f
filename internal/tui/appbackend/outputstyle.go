package appbackend

import "github.com/tandem-agent/tandem/internal/prompt"

// OutputStyles implements tui.OutputStyles.
func (b *Backend) OutputStyles() ([]prompt.Style, string) { return b.current().OutputStyles() }

// SetOutputStyle implements tui.OutputStyles.
func (b *Backend) SetOutputStyle(name string) (string, error) {
	return b.current().SetOutputStyle(name)
}
