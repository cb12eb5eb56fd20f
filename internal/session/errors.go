package session

import "github.com/tandem-agent/tandem/internal/store"

// The store's errors, named here so that front ends test a session
// layer's answer (errors.Is) without importing the store. They are the
// same values, so a wrapped store error matches either name.
var (
	// ErrNotFound: no session (or workspace) with that id.
	ErrNotFound = store.ErrNotFound
	// ErrAmbiguous: a session id prefix matches several sessions.
	ErrAmbiguous = store.ErrAmbiguous
	// ErrBadID: an id that cannot be one (bad characters, too short a prefix).
	ErrBadID = store.ErrBadID
	// ErrBusy: another live runner holds the session (a *store.BusyError).
	ErrBusy = store.ErrBusy
)

// CheckID validates an id that enters from outside (an API path, a
// flag): store.CheckID.
func CheckID(what, id string) error { return store.CheckID(what, id) }

// CheckUUID validates a UUID-shaped session id a flag gives (Claude
// Code's --session-id): store.CheckUUID.
func CheckUUID(flag, id string) error { return store.CheckUUID(flag, id) }
