//go:build !linux

package checkpoint

import "errors"

// watcher is Linux-only (inotify); elsewhere every scan stats the tree.
type watcher struct{}

type watchedDir struct {
	rel string
	ig  *ignorer
}

type fsEvent struct {
	dir   *watchedDir
	name  string
	isDir bool
}

func newWatcher() (*watcher, error) { return nil, errors.New("no file watcher on this system") }

func (w *watcher) hook(abs, rel string) func(*ignorer) { return func(*ignorer) {} }
func (w *watcher) failed() error                       { return nil }
func (w *watcher) drain() ([]fsEvent, bool, error)     { return nil, true, nil }
func (w *watcher) close()                              {}
func (e fsEvent) appeared() bool                       { return false }
func (e fsEvent) vanished() bool                       { return false }
