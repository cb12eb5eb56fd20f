package search

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tandem-agent/tandem/internal/tool"
)

// FileAccess declares the folders Glob searches (tool.FileAccessor): its
// path (the working folder when none is given) and, for a pattern that is
// absolute or climbs with "..", the folder the pattern starts in.
func (*Glob) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	p, err := tool.StringField(input, "path")
	if err != nil {
		return nil, err
	}
	pattern, err := tool.StringField(input, "pattern")
	if err != nil {
		return nil, err
	}
	if p == "" {
		p = "."
	}
	out := []tool.Access{{Path: p, Folder: true}}
	if filepath.IsAbs(pattern) {
		out = append(out, tool.Access{Path: globPrefix(pattern), Folder: true})
	}
	if strings.Contains(pattern, "..") {
		out = append(out, tool.Access{Path: globPrefix(filepath.Join(p, pattern)), Folder: true})
	}
	return out, nil
}

// FileAccess declares the folder (or file) Grep searches.
func (*Grep) FileAccess(input json.RawMessage) ([]tool.Access, error) {
	p, err := tool.StringField(input, "path")
	if err != nil {
		return nil, err
	}
	if p == "" {
		p = "."
	}
	return []tool.Access{{Path: p, Folder: true}}, nil
}

// globPrefix is the folder part of a glob before its first wildcard.
func globPrefix(g string) string {
	i := strings.IndexAny(g, "*?[{")
	if i < 0 {
		return g
	}
	return filepath.Dir(g[:i] + "x")
}
