package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// maxFilesPerCall bounds the files one call's changes send to servers (a
// command that rewrote a whole tree is not worth a server's minutes).
const maxFilesPerCall = 20

// FileErrors are the new errors of one file.
type FileErrors struct {
	Path   string // absolute
	New    []Diagnostic
	Server string
}

// Report is what a call's changes did to the errors servers see.
type Report struct {
	Files []FileErrors
	// Unchecked names files whose server gave no answer in time or could
	// not run (not shown to the model: the absence of news is no news).
	Unchecked []string
}

// Count is the number of new errors.
func (r Report) Count() int {
	n := 0
	for _, f := range r.Files {
		n += len(f.New)
	}
	return n
}

// Before reads the errors the files a call declares it writes have now,
// so that After reports only what the call adds. A file the servers have
// already seen keeps the errors last seen.
func (m *Manager) Before(ctx context.Context, paths []string) {
	var todo []string
	m.baseMu.Lock()
	for _, p := range paths {
		if _, ok := m.baseline[p]; !ok {
			if _, _, serves := m.opts.Settings.serverFor(p); serves {
				todo = append(todo, p)
			}
		}
	}
	m.baseMu.Unlock()
	m.each(ctx, todo, func(p string, errs []Diagnostic, _ string, ok bool) {
		if ok {
			m.baseMu.Lock()
			m.baseline[p] = errs
			m.baseMu.Unlock()
		}
	})
}

// After sends each changed file to its server, waits for the diagnostics
// of exactly that text and returns the errors that were not there before.
func (m *Manager) After(ctx context.Context, paths []string) Report {
	var r Report
	var mu sync.Mutex
	if len(paths) > maxFilesPerCall {
		paths = paths[:maxFilesPerCall]
	}
	m.each(ctx, paths, func(p string, errs []Diagnostic, server string, ok bool) {
		if !ok {
			mu.Lock()
			r.Unchecked = append(r.Unchecked, p)
			mu.Unlock()
			return
		}
		m.baseMu.Lock()
		prior := m.baseline[p]
		m.baseline[p] = errs
		m.baseMu.Unlock()
		if fresh := newErrors(prior, errs); len(fresh) > 0 {
			for i := range fresh {
				fresh[i].Message = m.opts.Redact(fresh[i].Message)
			}
			mu.Lock()
			r.Files = append(r.Files, FileErrors{Path: p, New: fresh, Server: server})
			mu.Unlock()
		}
	})
	slices.SortFunc(r.Files, func(a, b FileErrors) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(r.Unchecked)
	return r
}

// each syncs every path that has a server and calls f with its errors
// (ok false: no answer), the files in parallel.
func (m *Manager) each(ctx context.Context, paths []string, f func(path string, errs []Diagnostic, server string, ok bool)) {
	var wg sync.WaitGroup
	for _, p := range paths {
		if _, _, serves := m.opts.Settings.serverFor(p); !serves || m.rootOf(p) == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, langID, err := m.clientFor(ctx, p)
			if err != nil || c == nil {
				f(p, nil, "", false)
				return
			}
			v, err := c.sync(ctx, p, langID)
			if err != nil {
				f(p, nil, c.srv.Name, false)
				return
			}
			if v == 0 {
				f(p, nil, c.srv.Name, true) // gone: no errors
				return
			}
			wctx, cancel := context.WithTimeout(ctx, time.Duration(m.opts.Settings.WaitMS)*time.Millisecond)
			defer cancel()
			diags, ok := c.diagnostics(wctx, p, v, time.Duration(m.opts.Settings.SettleMS)*time.Millisecond)
			f(p, errorsOnly(diags), c.srv.Name, ok)
		}()
	}
	wg.Wait()
}

func errorsOnly(ds []Diagnostic) []Diagnostic {
	var out []Diagnostic
	for _, d := range ds {
		// A diagnostic without a severity is the client's to judge; the
		// servers tandem runs always give one, so none counts as an error.
		if d.Severity == SeverityError {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Diagnostic) int {
		if a.Range.Start.Line != b.Range.Start.Line {
			return a.Range.Start.Line - b.Range.Start.Line
		}
		return a.Range.Start.Character - b.Range.Start.Character
	})
	return out
}

// newErrors are the errors of now that prior did not have. Errors are
// matched by what they say, not where: an edit above an old error moves
// it without making it new.
func newErrors(prior, now []Diagnostic) []Diagnostic {
	seen := map[string]int{}
	for _, d := range prior {
		seen[key(d)]++
	}
	var out []Diagnostic
	for _, d := range now {
		k := key(d)
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

func key(d Diagnostic) string {
	return d.Source + "\x00" + string(d.Code) + "\x00" + d.Message
}

// Text is the report as the model reads it after a tool's result: at most
// max errors, paths relative to dir. "" when there is nothing new.
func (r Report) Text(dir string, max int) string {
	lines := r.Lines(dir, max)
	if len(lines) == 0 {
		return ""
	}
	return "\n\n<diagnostics>\nNew errors from the language server after this change (fix them before moving on):\n" +
		strings.Join(lines, "\n") + "\n</diagnostics>"
}

// Lines are the new errors one a line, compilers' style, at most max of
// them and then how many more there are.
func (r Report) Lines(dir string, max int) []string {
	total := r.Count()
	var out []string
	for _, f := range r.Files {
		for _, d := range f.New {
			if len(out) == max {
				break
			}
			out = append(out, d.line(relPath(dir, f.Path)))
		}
	}
	if n := total - len(out); n > 0 {
		out = append(out, fmt.Sprintf("... and %d more errors", n))
	}
	return out
}

// line is one diagnostic as the compilers print them (one-based).
func (d Diagnostic) line(path string) string {
	msg := strings.ReplaceAll(strings.TrimSpace(d.Message), "\n", " ")
	s := fmt.Sprintf("%s:%d:%d: error: %s", path, d.Range.Start.Line+1, d.Range.Start.Character+1, msg)
	if d.Source != "" {
		s += " [" + d.Source + "]"
	}
	return s
}

func relPath(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
