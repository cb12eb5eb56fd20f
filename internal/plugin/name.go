package plugin

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// namePattern is what a plugin's or a marketplace's name may be: it
// becomes a folder name under tandem's data folder and a prefix of command,
// skill, agent and MCP server names, so it has no separator, no leading
// dot and no space.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// CheckName reports whether name may name a plugin or marketplace (kind
// says which, for the message). Every name from a manifest, a marketplace
// or the command line is checked here before it is used in a path.
func CheckName(kind, name string) error {
	if !namePattern().MatchString(name) || strings.Contains(name, "..") {
		return fmt.Errorf("%s name %q is not valid: use letters, digits, '.', '_' and '-' (kebab-case, as Claude Code asks), at most 64 characters", kind, name)
	}
	return nil
}

// ID is an installed plugin's id, "name@marketplace".
type ID struct{ Name, Marketplace string }

func (id ID) String() string { return id.Name + "@" + id.Marketplace }

// ParseID reads "name@marketplace" and checks both names.
func ParseID(s string) (ID, error) {
	name, mkt, ok := strings.Cut(s, "@")
	if !ok || name == "" || mkt == "" {
		return ID{}, fmt.Errorf("plugin %q: name it as NAME@MARKETPLACE (see `tandem plugin marketplace list`)", s)
	}
	if err := CheckName("plugin", name); err != nil {
		return ID{}, err
	}
	if err := CheckName("marketplace", mkt); err != nil {
		return ID{}, err
	}
	return ID{name, mkt}, nil
}
