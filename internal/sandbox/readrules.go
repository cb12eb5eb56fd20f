package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// readRules turns "everything except deny" into what Landlock can say,
// which is only what is allowed: full read under each returned path in
// full, listing only (not reading files) under each path in list. The
// folders on the way to a denied path are listed entry by entry; every
// entry that is not denied and not on such a way is granted whole.
// Symbolic links among those entries are skipped (a rule on a link would
// grant its target, which may be denied); a path reached through a link
// is judged where it lands. Denied paths that do not exist are dropped.
func readRules(deny []string) (full, list []string) {
	denied := map[string]bool{}
	ancestors := map[string]bool{}
	for _, d := range deny {
		d = filepath.Clean(d)
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		} else {
			continue // not there: nothing to hide
		}
		if d == "/" {
			return nil, nil // nothing readable at all
		}
		denied[d] = true
		for p := filepath.Dir(d); ; p = filepath.Dir(p) {
			ancestors[p] = true
			if p == "/" {
				break
			}
		}
	}
	if len(denied) == 0 {
		return []string{"/"}, nil
	}
	var walk func(dir string)
	walk = func(dir string) {
		list = append(list, dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			return // unreadable: grant nothing under it
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case denied[p]:
			case ancestors[p]:
				walk(p)
			case e.Type()&os.ModeSymlink != 0:
			default:
				full = append(full, p)
			}
		}
	}
	walk("/")
	return full, list
}

// under reports whether p is root or inside it.
func under(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// deniedBy returns the entry of deny that p is or is under ("" if none).
func deniedBy(p string, deny []string) string {
	i := slices.IndexFunc(deny, func(d string) bool { return under(p, d) })
	if i < 0 {
		return ""
	}
	return deny[i]
}
