package search

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"sync"

	"github.com/tandem-agent/tandem/internal/regular"
)

// goEngine searches without ripgrep. It follows ripgrep's rules where they
// matter to the model (ignore files, hidden files, binary files skipped,
// globs and types, context, multiline); its regular expressions are Go's
// RE2, which is close to ripgrep's Rust syntax (docs/tools.md lists the
// differences).
type goEngine struct{}

func compilePattern(q query) (*regexp.Regexp, error) {
	flags := "(?m)"
	if q.ignoreCase {
		flags += "(?i)"
	}
	if q.multiline {
		flags += "(?s)"
	}
	return regexp.Compile(flags + q.pattern)
}

func (goEngine) search(ctx context.Context, q query) ([]fileResult, error) {
	re, err := compilePattern(q)
	if err != nil {
		return nil, err
	}
	if q.rootIsFile {
		// Explicitly named files are searched whatever the filters say.
		r, ok := searchFile(q, re, q.root)
		if !ok {
			return nil, nil
		}
		return []fileResult{r}, nil
	}
	filter, err := newFileFilter(q.globs, q.fileType)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	paths := make(chan string, 256)
	var (
		mu      sync.Mutex
		results []fileResult
		wg      sync.WaitGroup
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range paths {
				if r, ok := searchFile(q, re, p); ok {
					mu.Lock()
					results = append(results, r)
					mu.Unlock()
				}
			}
		}()
	}
	w := newWalker(q.root)
	if len(filter.include) > 0 {
		w.unignore = filter.included
	}
	walkErr := w.walk(ctx, func(path, rel string, _ fs.DirEntry) error {
		if !filter.allows(rel) {
			return nil
		}
		select {
		case paths <- path:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(paths)
	wg.Wait()
	if walkErr != nil {
		return nil, walkErr
	}
	sort.Slice(results, func(i, j int) bool { return results[i].path < results[j].path })
	return results, nil
}

// searchFile reports what q finds in one file; ok is false for no match,
// unreadable files and binary files (those holding a NUL byte).
func searchFile(q query, re *regexp.Regexp, path string) (fileResult, bool) {
	data, err := regular.ReadFile(path)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return fileResult{}, false
	}
	return searchData(q, re, path, data)
}

// searchData reports what q finds in the text of the file at path.
func searchData(q query, re *regexp.Regexp, path string, data []byte) (fileResult, bool) {
	// One pass over the whole file first: most files do not match, and a
	// match anywhere in the file is necessary for a match in some line.
	if !re.Match(data) {
		return fileResult{}, false
	}
	lines := splitLines(data)
	var matched []int // line indexes, ascending
	blocks := 0       // ripgrep counts matches, not lines, in multiline mode
	if q.multiline {
		matched, blocks = multilineMatches(re, data, lines)
	} else {
		for i, l := range lines {
			if re.Match(l) {
				matched = append(matched, i)
				if q.mode == modeFiles {
					break
				}
			}
		}
	}
	if len(matched) == 0 {
		return fileResult{}, false
	}
	r := fileResult{path: filepath.Clean(path), count: len(matched)}
	if q.multiline {
		r.count = blocks
	}
	if q.mode == modeContent {
		r.lines = withContext(lines, matched, q.before, q.after)
	}
	return r, true
}

// splitLines splits on \n; a final line without a newline counts, an empty
// remainder after the last newline does not.
func splitLines(data []byte) [][]byte {
	lines := bytes.Split(data, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// multilineMatches returns the indexes of every line a match touches, and
// the number of matches, which is what ripgrep counts in multiline mode.
func multilineMatches(re *regexp.Regexp, data []byte, lines [][]byte) ([]int, int) {
	starts := make([]int, len(lines)) // byte offset of each line
	off := 0
	for i, l := range lines {
		starts[i] = off
		off += len(l) + 1
	}
	lineOf := func(pos int) int { return sort.Search(len(starts), func(i int) bool { return starts[i] > pos }) - 1 }
	seen := map[int]bool{}
	var out []int
	blocks := 0
	for _, m := range re.FindAllIndex(data, -1) {
		first, last := lineOf(m[0]), lineOf(max(m[1]-1, m[0]))
		blocks++
		for i := max(first, 0); i <= last && i < len(lines); i++ {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	sort.Ints(out)
	return out, blocks
}

func withContext(lines [][]byte, matched []int, before, after int) []lineEntry {
	isMatch := make(map[int]bool, len(matched))
	for _, i := range matched {
		isMatch[i] = true
	}
	var out []lineEntry
	next := 0 // first line index not yet emitted
	for _, m := range matched {
		from := max(m-before, next)
		to := min(m+after, len(lines)-1)
		for i := from; i <= to; i++ {
			out = append(out, lineEntry{num: i + 1, text: string(lines[i]), match: isMatch[i]})
		}
		next = max(next, to+1)
	}
	return out
}
