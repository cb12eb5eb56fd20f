package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds symlink resolution (as the kernel's ELOOP does).
const maxLinks = 64

// ResolvePath returns p with every symlink resolved, including the final
// component and links whose target does not exist yet (a dangling link
// `out -> /etc/new` resolves to /etc/new, so writing through it is judged
// as writing /etc/new). ".." is applied to the resolved folder, as the
// kernel does. A relative p is taken against base.
func ResolvePath(base, p string) (string, error) {
	if !filepath.IsAbs(p) {
		// Not filepath.Join: it would clean "link/.." lexically, and the
		// kernel applies ".." to the link's target.
		p = base + string(filepath.Separator) + p
	}
	links := 0
	return resolve(filepath.VolumeName(p)+string(filepath.Separator), splitPath(p), &links)
}

func splitPath(p string) []string {
	p = p[len(filepath.VolumeName(p)):]
	var out []string
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part != "" && part != "." {
			out = append(out, part)
		}
	}
	return out
}

// resolve walks parts from the already-resolved folder cur.
func resolve(cur string, parts []string, links *int) (string, error) {
	for i, part := range parts {
		if part == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing further exists: the rest is taken literally, but ".."
			// still climbs.
			rest := filepath.Join(append([]string{next}, parts[i+1:]...)...)
			return filepath.Clean(rest), nil
		}
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", next, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		*links++
		if *links > maxLinks {
			return "", fmt.Errorf("resolve %s: more than %d symbolic links", next, maxLinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("read link %s: %w", next, err)
		}
		start := cur
		if filepath.IsAbs(target) {
			start = filepath.VolumeName(target) + string(filepath.Separator)
		}
		resolved, err := resolve(start, splitPath(target), links)
		if err != nil {
			return "", err
		}
		cur = resolved
	}
	return cur, nil
}

// ResolveInRoots resolves p (relative paths against roots[0]) through
// symlinks and reports whether the result lies inside one of the roots
// (themselves resolved). File tools and the engine share it so that what
// is checked is what is opened.
func ResolveInRoots(roots []string, p string) (resolved string, inside bool, err error) {
	base := ""
	if len(roots) > 0 {
		base = roots[0]
	}
	resolved, err = ResolvePath(base, p)
	if err != nil {
		return "", false, err
	}
	for _, r := range roots {
		rr, err := ResolvePath("/", r)
		if err != nil {
			continue
		}
		if within(rr, resolved) {
			return resolved, true, nil
		}
	}
	return resolved, false, nil
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	if root == p {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
