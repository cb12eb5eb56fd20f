package appbackend

import "github.com/tandem-agent/tandem/internal/event"

// Tasks implements tui.BackgroundTasks: the open session's background
// tasks.
func (b *Backend) Tasks() []event.Task { return b.current().Tasks() }

// StopTask implements tui.BackgroundTasks.
func (b *Backend) StopTask(id string) (event.Task, error) { return b.current().StopTask(id) }
