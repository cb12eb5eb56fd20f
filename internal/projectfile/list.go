package projectfile

import (
	"errors"
	"io"
	"os"
	"sort"
)

// List names the entries of path, a folder of the repository (a link to
// one is resolved and must stay inside; a credential-like folder is
// refused, as Read refuses such a file): sorted, folders marked with a
// trailing "/", at most max of them (more says some were left out).
func (r Root) List(path string, max int) (names []string, more bool, err error) {
	real, err := r.resolve(path)
	if err != nil {
		return nil, false, err
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, false, named(path, real, err)
	}
	if !info.IsDir() {
		return nil, false, errors.New(path + " is not a folder")
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, false, named(path, real, err)
	}
	defer f.Close()
	// One entry past max tells whether there were more.
	entries, err := f.ReadDir(max + 1)
	if err != nil && len(entries) == 0 && !errors.Is(err, io.EOF) {
		return nil, false, named(path, real, err)
	}
	if len(entries) > max {
		entries, more = entries[:max], true
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	return names, more, nil
}
