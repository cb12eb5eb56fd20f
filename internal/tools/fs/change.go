package fs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// maxEditBytes is the largest file Edit and MultiEdit change in memory.
const maxEditBytes = 16 << 20

// change is the outcome of applying edits to one file's text.
type change struct {
	abs, real string
	created   bool
	before    string // LF text before
	after     string // LF text after
	steps     []applied
}

// changeFile applies ops in order to the file at given, all or nothing, and
// writes it. It holds the file's lock throughout so that parallel calls on
// one file land one after another. A non-empty message is for the model.
func changeFile(ctx context.Context, env *tool.Env, toolName, given string, ops []editOp) (change, string) {
	abs, real, msg := resolveForTool(env, toolName, given)
	if msg != "" {
		return change{}, msg
	}
	unlock := LocksFrom(env).Lock(real)
	defer unlock()
	ch := change{abs: abs, real: real}

	info, err := os.Stat(real)
	if errors.Is(err, os.ErrNotExist) {
		if len(ops) == 0 || normalizeInput(ops[0].Old) != "" {
			return ch, missingFileMessage(abs, env.WorkDir) + " To create a new file, use Write, or Edit with an empty old_string."
		}
		ch.created = true
		return ch.apply(ctx, env, toolName, fileDoc{}, ops)
	}
	if err != nil {
		return ch, fmt.Sprintf("Cannot access %s: %v", abs, err)
	}
	if info.IsDir() {
		return ch, fmt.Sprintf("%s is a directory, not a file; %s changes files.", abs, toolName)
	}
	if !info.Mode().IsRegular() {
		return ch, fmt.Sprintf("%s is not a regular file (%s); %s only changes regular files.", abs, info.Mode().Type(), toolName)
	}
	if info.Size() > maxEditBytes {
		return ch, fmt.Sprintf("%s is %s, too large for %s (limit %s). Change it with a command via the Bash tool (e.g. sed).", abs, humanSize(info.Size()), toolName, humanSize(maxEditBytes))
	}
	raw, err := env.FileSystem().ReadFile(ctx, real)
	if err != nil {
		return ch, fmt.Sprintf("Cannot read %s: %v", abs, err)
	}
	if isBinary(raw[:min(len(raw), 8192)]) {
		return ch, fmt.Sprintf("%s looks like a binary file; %s only changes text files.", abs, toolName)
	}
	if msg := TrackerFrom(env).CheckFresh(real, info, raw); msg != "" {
		return ch, msg
	}
	return ch.apply(ctx, env, toolName, decodeDoc(raw), ops)
}

func (ch change) apply(ctx context.Context, env *tool.Env, toolName string, doc fileDoc, ops []editOp) (change, string) {
	ch.before = doc.text
	text, steps, msg := applyOps(doc.text, ops)
	if msg != "" {
		return ch, msg
	}
	ch.steps = steps
	if text == ch.before && !ch.created {
		return ch, "The edit leaves the file unchanged (new_string equals the text it would replace). Nothing was written."
	}
	ch.after = text
	if ch.created {
		if err := os.MkdirAll(filepath.Dir(ch.real), 0o755); err != nil {
			return ch, fmt.Sprintf("Cannot create the folder for %s: %v", ch.abs, err)
		}
	}
	msg = writeTracked(ctx, env, ch.real, doc.encode(text))
	if msg != "" {
		return ch, fmt.Sprintf("%s: cannot write %s: %s", toolName, ch.abs, msg)
	}
	return ch, ""
}

// writeTracked writes data in place (keeping the file's mode, owner and
// hard links), through the session's Files, and records the new state, so
// the next Edit needs no Read.
func writeTracked(ctx context.Context, env *tool.Env, real string, data []byte) string {
	if msg := refuseHardLink(real); msg != "" {
		return msg
	}
	if err := env.FileSystem().WriteFile(ctx, real, data); err != nil {
		return err.Error()
	}
	info, err := os.Stat(real)
	switch {
	case err == nil:
		TrackerFrom(env).RecordContent(real, info, data)
	case env.Files != nil:
		// An editor may keep the new content in a buffer it has not saved:
		// its hash alone says whether it changed by the next edit.
		TrackerFrom(env).Record(real, FileState{Hash: hashBytes(data), ReadAt: time.Now()})
	default:
		return err.Error()
	}
	return ""
}

// changedLines returns the first changed line (1-based) of after and how
// many lines of after the change spans.
func changedLines(before, after string) (start, count int) {
	a, b := strings.Split(before, "\n"), strings.Split(after, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre + 1, max(len(b)-suf-pre, 1)
}

// result renders a successful change for the model and the UI.
func (ch change) result(summary string) tool.Result {
	diff := unifiedDiff(ch.abs, ch.before, ch.after)
	added, removed := diffStats(diff)
	start, count := changedLines(ch.before, ch.after)
	content := summary + " Here's the result of running `cat -n` on a snippet of the edited file:\n" + snippet(ch.after, start, count)
	var matchers []string
	for i, s := range ch.steps {
		matchers = append(matchers, s.matcher)
		if s.matcher == exactMatcher {
			continue
		}
		which := "old_string"
		if len(ch.steps) > 1 {
			which = fmt.Sprintf("edits[%d].old_string", i)
		}
		content += fmt.Sprintf("\n\nNote: %s did not match exactly; the %s matcher matched it at line %d.", which, s.matcher, s.startLine)
		if s.reindented {
			content += " new_string was re-indented to the file's indentation."
		}
		content += " Check the snippet above."
	}
	meta := map[string]any{"file_path": ch.abs, "additions": added, "deletions": removed, "created": ch.created}
	total := 0
	for _, s := range ch.steps {
		total += s.replacements
	}
	meta["replacements"] = total
	if len(ch.steps) == 1 {
		meta["matcher"] = matchers[0]
	} else {
		meta["matchers"] = matchers
	}
	return tool.Result{Content: content, Diff: diff, Meta: meta}
}

// refuseHardLink stops a write through a file with other names: a hard link
// in the workspace to a file outside it would let a write change that file,
// and the other names cannot be found to check them.
func refuseHardLink(real string) string {
	info, err := os.Lstat(real)
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	if n := linkCount(info); n > 1 {
		return fmt.Sprintf("%s has %d hard links: it is the same file as %d other name(s), which may be outside the workspace, so tandem does not write through it. "+
			"If that is intended, replace it with a copy first (cp %s %s.tmp && mv %s.tmp %s) and retry.", real, n, n-1, real, real, real, real)
	}
	return ""
}
