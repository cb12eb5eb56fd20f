package tool

import "sync"

// Notices are what the session's background work has to tell the model
// (a background shell ended): queued by the tool that owns the work and
// handed to the model with the next message the loop records (a prompt
// or a step's tool results), so an end is always reported, never lost.
type notices struct {
	mu    sync.Mutex
	queue []string
}

const noticesKey = "notices"

func noticesOf(env *Env) *notices {
	return env.State.Load(noticesKey, func() any { return &notices{} }).(*notices)
}

// Notify queues text for the model.
func Notify(env *Env, text string) {
	n := noticesOf(env)
	n.mu.Lock()
	n.queue = append(n.queue, text)
	n.mu.Unlock()
}

// TakeNotices returns the queued notices and empties the queue.
func TakeNotices(env *Env) []string {
	if env == nil || env.State == nil {
		return nil
	}
	n := noticesOf(env)
	n.mu.Lock()
	defer n.mu.Unlock()
	out := n.queue
	n.queue = nil
	return out
}
