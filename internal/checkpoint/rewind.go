package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tandem-agent/tandem/internal/store"
)

// RewindOptions choose what a rewind restores.
type RewindOptions struct {
	FilesOnly        bool // keep the conversation
	ConversationOnly bool // keep the files
	// Force overwrites files changed outside tandem since the checkpoint.
	Force bool
	// Progress, when set, hears of each file as it is put back.
	Progress func(path, action string)
}

// RewindResult says what a rewind did.
type RewindResult struct {
	Checkpoint store.Checkpoint
	Restored   []string // written back with their earlier content
	Removed    []string // created after the checkpoint, now deleted
	Unchanged  []string // already as they were
	Skipped    []string // too large to have been saved: left as they are
	Messages   int      // messages set aside
}

// ConflictError names files changed outside tandem after the checkpoint.
type ConflictError struct{ Paths []string }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s changed outside tandem after the checkpoint; rewinding would overwrite that change (use --force to overwrite, or move the change aside first)",
		strings.Join(e.Paths, ", "))
}

// target is where one file goes back to.
type target struct {
	file  store.CheckpointFile
	known string
	has   bool // known is set
}

// Rewind puts a session back to just before prompt number: every file
// changed from that prompt on gets its prior state (deleted files come
// back, created ones go), and the conversation loses that prompt and what
// followed. Files are checked first and then restored one at a time
// atomically (temporary file and rename, mode kept); the conversation is
// cut last, in one transaction. A rewind killed midway can be run again:
// files already restored count as unchanged, not as conflicts.
func (s *Service) Rewind(ctx context.Context, sessionID string, number int, opt RewindOptions) (RewindResult, error) {
	var res RewindResult
	if opt.FilesOnly && opt.ConversationOnly {
		return res, errors.New("choose --files-only or --conversation-only, not both")
	}
	cps, err := s.st.Checkpoints(ctx, sessionID)
	if err != nil {
		return res, err
	}
	idx := -1
	for i, cp := range cps {
		if cp.Number == number {
			idx = i
		}
	}
	if idx < 0 {
		return res, fmt.Errorf("session %s has no checkpoint %d%s", sessionID, number, available(cps))
	}
	res.Checkpoint = cps[idx]
	if !opt.ConversationOnly {
		if err := s.restoreFiles(ctx, sessionID, cps[idx:], opt, &res); err != nil {
			return res, err
		}
	}
	if !opt.FilesOnly {
		meta, err := s.rewindMeta(cps[idx].Resume)
		if err != nil {
			return res, err
		}
		n, err := s.st.RewindConversation(ctx, sessionID, number, cps[idx].Position, meta)
		if err != nil {
			return res, err
		}
		res.Messages = n
	}
	return res, nil
}

func available(cps []store.Checkpoint) string {
	if len(cps) == 0 {
		return " (it has none: checkpoints are made before each prompt)"
	}
	return fmt.Sprintf(" (it has %d to %d: list them with `tandem sessions checkpoints`)", cps[0].Number, cps[len(cps)-1].Number)
}

func (s *Service) rewindMeta(resume string) (map[string]string, error) {
	captured := map[string]string{}
	if resume != "" {
		if err := json.Unmarshal([]byte(resume), &captured); err != nil {
			return nil, fmt.Errorf("checkpoint resume facts: %w", err)
		}
	}
	if s.opts.OnRewind != nil {
		return s.opts.OnRewind(captured), nil
	}
	return captured, nil
}

func (s *Service) restoreFiles(ctx context.Context, sessionID string, cps []store.Checkpoint, opt RewindOptions, res *RewindResult) error {
	known, err := s.st.KnownFiles(ctx, sessionID)
	if err != nil {
		return err
	}
	targets := map[string]target{}
	for _, cp := range cps { // oldest first: the earliest record is the state before prompt N
		for _, f := range cp.Files {
			if _, ok := targets[f.Path]; !ok {
				k, has := known[f.Path]
				targets[f.Path] = target{file: f, known: k, has: has}
			}
		}
	}
	paths := make([]string, 0, len(targets))
	for p := range targets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var conflicts, todo []string
	for _, p := range paths {
		t := targets[p]
		if t.file.State == store.FileTooLarge {
			res.Skipped = append(res.Skipped, p)
			continue
		}
		cur, _, err := hashFile(p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		if cur == t.file.Hash { // "" == "" for a file that is absent and should be
			res.Unchanged = append(res.Unchanged, p)
			continue
		}
		if !opt.Force && (!t.has || cur != t.known) {
			conflicts = append(conflicts, p)
			continue
		}
		todo = append(todo, p)
	}
	if len(conflicts) > 0 {
		return &ConflictError{Paths: conflicts}
	}
	removeStaleTemps(paths)
	restored := map[string]string{}
	for _, p := range todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t := targets[p]
		action := "restored"
		if t.file.State == store.FileAbsent {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", p, err)
			}
			action = "removed"
			res.Removed = append(res.Removed, p)
		} else {
			data, err := s.blobs.get(t.file.Hash)
			if err != nil {
				return fmt.Errorf("restore %s: %w", p, err)
			}
			if err := writeAtomic(p, data, fs.FileMode(t.file.Mode)); err != nil {
				return fmt.Errorf("restore %s: %w", p, err)
			}
			res.Restored = append(res.Restored, p)
		}
		restored[p] = t.file.Hash
		if opt.Progress != nil {
			opt.Progress(p, action)
		}
	}
	return s.st.SetKnownFiles(ctx, sessionID, restored)
}

// tempMark names the temporary files a restore writes next to the file.
const tempMark = ".tandem-rewind-"

// removeStaleTemps deletes temporary files a killed rewind left in the
// folders of paths.
func removeStaleTemps(paths []string) {
	dirs := map[string]bool{}
	for _, p := range paths {
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), tempMark) && e.Type().IsRegular() {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
}

// writeAtomic replaces path with data: written and synced to a temporary
// file in the same folder, given the mode, then renamed over the file, so
// a kill leaves either the old or the new content, never a mix.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if mode == 0 {
		mode = 0o644
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+tempMark+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, mode.Perm())
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
