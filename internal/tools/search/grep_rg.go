package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// rgEngine runs ripgrep. Flags are chosen so that both engines agree:
// hidden files searched, .git skipped, ignore files honoured outside git
// repositories too, no user config.
type rgEngine struct{ bin string }

func (e rgEngine) args(q query) []string {
	a := []string{"--no-config", "--hidden", "--no-require-git", "--no-messages", "--glob", "!.git"}
	if q.ignoreCase {
		a = append(a, "--ignore-case")
	} else {
		a = append(a, "--case-sensitive")
	}
	if q.multiline {
		a = append(a, "--multiline", "--multiline-dotall")
	}
	if q.fileType != "" {
		a = append(a, "--type", q.fileType)
	}
	for _, g := range q.globs {
		a = append(a, "--glob", g)
	}
	switch q.mode {
	case modeFiles:
		a = append(a, "--files-with-matches", "--null")
	case modeCount:
		a = append(a, "--count", "--null", "--with-filename")
	default:
		a = append(a, "--json")
		if q.before > 0 {
			a = append(a, "--before-context", strconv.Itoa(q.before))
		}
		if q.after > 0 {
			a = append(a, "--after-context", strconv.Itoa(q.after))
		}
	}
	// Globs with a "/" match paths relative to the folder rg is given, and
	// only when that folder is given as "."; so rg runs inside the root.
	target := "."
	if q.rootIsFile {
		target = filepath.Base(q.root)
	}
	return append(a, "--regexp", q.pattern, "--", target)
}

// rgDir is where rg runs: the root folder, or a file root's folder.
func rgDir(q query) string {
	if q.rootIsFile {
		return filepath.Dir(q.root)
	}
	return q.root
}

// absPath turns a path rg printed (relative to rgDir) into an absolute one.
func absPath(q query, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(rgDir(q), p)
}

func (e rgEngine) search(ctx context.Context, q query) ([]fileResult, error) {
	if q.fileType != "" {
		if _, err := typeGlobs(q.fileType); err != nil {
			return nil, err // same message whichever engine runs
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(rctx, e.bin, e.args(q)...)
	cmd.Dir = rgDir(q)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	stalled := make(chan string, 1)
	watch := time.AfterFunc(rgStallCheck, func() {
		if p := specialIgnoreFile(rctx, q.root); p != "" {
			stalled <- p
			cancel()
		}
	})
	err := cmd.Run()
	watch.Stop()
	select {
	case <-stalled:
		// ripgrep was waiting on a FIFO ignore file; the Go engine reads
		// only regular files.
		return goEngine{}.search(ctx, q)
	default:
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return nil, nil // no match
	case errors.As(err, &ee) && ee.ExitCode() == 2 && stdout.Len() > 0:
		// Some files could not be read; report what was found.
	case ctx.Err() != nil:
		return nil, ctx.Err()
	default:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		if strings.Contains(msg, "regex parse error") {
			return nil, fmt.Errorf("invalid input for Grep: pattern %q is not a valid regular expression (escape literal characters such as { } ( ) [ ] with a backslash): %s", q.pattern, msg)
		}
		return nil, fmt.Errorf("Grep (ripgrep) failed: %s", msg)
	}
	var results []fileResult
	switch q.mode {
	case modeFiles:
		for _, p := range strings.Split(stdout.String(), "\x00") {
			if p = strings.TrimSpace(p); p != "" {
				results = append(results, fileResult{path: absPath(q, p), count: 1})
			}
		}
	case modeCount:
		results = parseCounts(q, stdout.Bytes())
	default:
		results, err = parseJSON(q, stdout.Bytes())
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(results, func(i, j int) bool { return results[i].path < results[j].path })
	return results, nil
}

func parseCounts(q query, out []byte) []fileResult {
	var results []fileResult
	for _, line := range strings.Split(string(out), "\n") {
		path, n, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		c, err := strconv.Atoi(strings.TrimSpace(n))
		if err == nil && c > 0 {
			results = append(results, fileResult{path: absPath(q, path), count: c})
		}
	}
	return results
}

// rgText is ripgrep's JSON "arbitrary data": text, or bytes in base64 when
// not valid UTF-8.
type rgText struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	if t.Bytes != nil {
		if b, err := base64.StdEncoding.DecodeString(*t.Bytes); err == nil {
			return string(b)
		}
	}
	return ""
}

type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

func parseJSON(q query, out []byte) ([]fileResult, error) {
	byPath := map[string]*fileResult{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m rgMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("Grep: unexpected ripgrep output: %w", err)
		}
		if m.Type != "match" && m.Type != "context" {
			continue
		}
		p := absPath(q, m.Data.Path.String())
		r, ok := byPath[p]
		if !ok {
			r = &fileResult{path: p}
			byPath[p] = r
			order = append(order, p)
		}
		// A multiline match spans several lines; each becomes an entry.
		text := strings.TrimSuffix(m.Data.Lines.String(), "\n")
		for i, l := range strings.Split(text, "\n") {
			e := lineEntry{num: m.Data.LineNumber + i, text: l, match: m.Type == "match"}
			if n := len(r.lines); n > 0 && r.lines[n-1].num >= e.num {
				continue // already listed by an overlapping match
			}
			r.lines = append(r.lines, e)
			if e.match {
				r.count++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("Grep: read ripgrep output: %w", err)
	}
	results := make([]fileResult, 0, len(order))
	for _, p := range order {
		results = append(results, *byPath[p])
	}
	return results, nil
}
