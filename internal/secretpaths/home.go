package secretpaths

import (
	"os"
	"path/filepath"
	"slices"
)

// HomePaths lists, as paths, the credentials under home that
// Sensitive judges by name, for a boundary that needs paths rather
// than a predicate (the sandbox's Landlock rules allow, they cannot match
// names): the credential folders and files of the tables above directly in
// home, those under ~/.config and ~/.docker, and every entry of home and
// ~/.config that Sensitive calls a credential; and /etc/shadow and
// /etc/gshadow, which a command run as root could read. Paths that do not
// exist are included (the sandbox drops them).
func HomePaths(home string) []string {
	if home == "" {
		return nil
	}
	var out []string
	for d := range sensitiveDirs {
		out = append(out, filepath.Join(home, d))
	}
	for n := range sensitiveNames {
		out = append(out, filepath.Join(home, filepath.FromSlash(n)))
		if n == "shadow" || n == "gshadow" {
			out = append(out, filepath.Join("/etc", n)) // root can read them
		}
	}
	for d := range sensitiveConfigDirs {
		out = append(out, filepath.Join(home, ".config", d))
	}
	for _, dir := range []string{home, filepath.Join(home, ".config")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if p := filepath.Join(dir, e.Name()); Sensitive(p, home) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
