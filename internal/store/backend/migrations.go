package backend

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migration is one numbered schema change of a backend.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations reads a backend's migration files from dir of fsys in version
// order. Every backend names them the same way, NNNN_description.sql,
// NNNN being the version (each backend numbers its own).
func Migrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s: name must start with a positive number and '_'", name)
		}
		body, err := fs.ReadFile(fsys, dir+"/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", out[i-1].Name, out[i].Name, out[i].Version)
		}
	}
	return out, nil
}
