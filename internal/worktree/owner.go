package worktree

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandem-agent/tandem/internal/regular"
)

// ownerFile is the marker each worktree tandem makes carries while the
// process that made it may still remove it: in the worktree's own git
// folder (.git/worktrees/NAME/), where git ignores it and removes it with
// the worktree, and out of sight of the worktree's files. Not `git
// worktree lock`: a locked worktree refuses the `git worktree remove
// --force` a kept worktree's message tells the user to run.
const ownerFile = "tandem-owner"

// maxOwnerFile bounds the marker read (a repository controls the folder).
const maxOwnerFile = 8192

// owner is the marker's content: which process made the worktree, and
// what Finish needs to judge and remove it when that process is gone.
type owner struct {
	Host string `json:"host"`
	// NS is the pid namespace the pid is in (Linux), "" elsewhere.
	NS  string `json:"pid_ns,omitempty"`
	PID int    `json:"pid"`
	// Start names the process's start (processStart), "" if unknown.
	Start  string   `json:"start,omitempty"`
	Name   string   `json:"name"`
	Path   string   `json:"path"`
	Branch string   `json:"branch"`
	Base   string   `json:"base"`
	Made   []string `json:"made,omitempty"`
}

// self is an owner naming this process.
func self() owner {
	host, _ := os.Hostname()
	start, _, _ := processStart(os.Getpid())
	return owner{Host: host, NS: pidNamespace(), PID: os.Getpid(), Start: start}
}

// alive reports whether the owner may still run. Only a process on this
// machine, in this pid namespace, can be known gone: no such pid, or the
// pid now names a process started at another time (reused). Anything
// unknown counts as alive, so a sweep never removes a worktree in use.
// me is self(), made once by the caller.
func (o owner) alive(me owner) bool {
	if o.PID <= 0 || o.Host != me.Host || o.NS != me.NS {
		return true
	}
	start, gone, err := processStart(o.PID)
	switch {
	case err != nil:
		return true
	case gone:
		return false
	case o.Start == "":
		return true
	}
	return start == o.Start
}

// claim writes the marker naming this process as t's owner (replacing
// the file at once, so a reader never sees half of it).
func (t *Tree) claim() error {
	o := self()
	o.Name, o.Path, o.Branch, o.Base, o.Made = t.Name, t.Path, t.Branch, t.Base, t.made
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(t.gitDir, ownerFile+".*")
	if err != nil {
		return fmt.Errorf("record the worktree's owner: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(t.gitDir, ownerFile))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record the worktree's owner: %w", werr)
	}
	return nil
}

// disown removes the marker: the kept worktree is the user's now, and no
// later sweep reports it again.
func (t *Tree) disown() error {
	_, err := t.handOver()
	return err
}

// handOver is disown reporting whether this call removed the marker: of
// two sweeps racing for one worktree, only the one whose unlink succeeded
// reports it.
func (t *Tree) handOver() (bool, error) {
	if t.gitDir == "" {
		return false, nil
	}
	err := os.Remove(filepath.Join(t.gitDir, ownerFile))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("forget the worktree's owner: %w", err)
}

// readOwner reads the marker in a worktree's git folder; ok false when
// there is none (a worktree the user made, or one already handed over)
// or it is not one tandem wrote.
func readOwner(gitDir string) (o owner, ok bool) {
	b, _, err := regular.ReadCapped(filepath.Join(gitDir, ownerFile), maxOwnerFile)
	if err != nil || json.Unmarshal(b, &o) != nil || o.PID <= 0 || o.Base == "" || o.Branch == "" {
		return owner{}, false
	}
	return o, true
}
