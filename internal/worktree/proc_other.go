//go:build !linux && !darwin

package worktree

import "errors"

// processStart cannot tell a process's start here: every owner counts as
// alive, so no worktree is swept (never one whose owner may still run).
func processStart(pid int) (start string, gone bool, err error) {
	return "", false, errors.New("process start times are not known on this system")
}

// pidNamespace: one pid space per machine here.
func pidNamespace() string { return "" }
