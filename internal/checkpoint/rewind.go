package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	// Roots are the session's folders besides its working folder (its
	// --add-dir folders). A file outside all of them, or reached through
	// a folder that is a symbolic link now, is left alone and reported in
	// Outside, even with Force.
	Roots []string
}

// RewindResult says what a rewind did.
type RewindResult struct {
	Checkpoint store.Checkpoint
	Restored   []string // written back with their earlier content
	Removed    []string // created after the checkpoint, now deleted
	Unchanged  []string // already as they were
	Skipped    []string // too large to have been saved: left as they are
	Outside    []string // outside the session's folders now (a folder became a link): left alone
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
	rec, err := s.st.GetSession(ctx, sessionID)
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
	// Each target is placed again now, under the session's folders as they
	// are (place.go): never through a folder that became a link.
	placer := newPlacer(append([]string{rec.Cwd}, opt.Roots...))
	defer placer.close()
	places := map[string]place{}
	var conflicts, todo []string
	var blocked []inTheWay
	for _, p := range paths {
		t := targets[p]
		if t.file.State == store.FileTooLarge {
			res.Skipped = append(res.Skipped, p)
			continue
		}
		pl, err := placer.resolve(p)
		var way *inTheWay
		switch {
		case errors.Is(err, errOutside):
			res.Outside = append(res.Outside, p)
			if opt.Progress != nil {
				opt.Progress(p, "left alone ("+err.Error()+")")
			}
			continue
		case errors.As(err, &way):
			if way.path == p && t.file.State == store.FileAbsent {
				way.need = "no file (the turn created one, which the rewind removes)"
			}
			blocked = append(blocked, *way)
			continue
		case err != nil:
			return fmt.Errorf("rewind %s: %w", p, err)
		}
		places[p] = pl
		cur := ""
		switch {
		case pl.link:
			cur = "symbolic link" // never a content hash: a change to restore over
		case pl.exists:
			if cur, _, err = hashFile(p); err != nil {
				return fmt.Errorf("read %s: %w", p, err)
			}
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
	if len(blocked) > 0 {
		return &BlockedError{Items: blocked}
	}
	if len(conflicts) > 0 {
		return &ConflictError{Paths: conflicts}
	}
	all := make([]place, 0, len(places))
	for _, p := range paths {
		if pl, ok := places[p]; ok {
			all = append(all, pl)
		}
	}
	removeStaleTemps(all)
	restored := map[string]string{}
	for _, p := range todo {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t, pl := targets[p], places[p]
		action := "restored"
		if t.file.State == store.FileAbsent {
			if err := pl.remove(); err != nil {
				return fmt.Errorf("remove %s: %w", p, err)
			}
			action = "removed"
			res.Removed = append(res.Removed, p)
		} else {
			data, err := s.content(ctx, t.file.Hash)
			if err != nil {
				return fmt.Errorf("restore %s: %w", p, err)
			}
			if err := pl.write(data, fs.FileMode(t.file.Mode)); err != nil {
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
