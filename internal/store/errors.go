package store

import (
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned (wrapped) for an unknown session, workspace or
// grant id. Test with errors.Is.
var ErrNotFound = errors.New("not found")

// ErrAmbiguous is returned (wrapped) when a session id prefix matches more
// than one session.
var ErrAmbiguous = errors.New("ambiguous id prefix")

// ErrBusy is returned (wrapped, as a *BusyError) when another live runner
// holds a session's lease. Test with errors.Is.
var ErrBusy = errors.New("session is busy")

// ErrLeaseLost is returned by RenewLease when the lease is no longer this
// holder's: it expired and another runner took it over.
var ErrLeaseLost = errors.New("session lease lost")

// BusyError says who holds a session's lease.
type BusyError struct {
	SessionID string
	PID       int
	Host      string
	Since     time.Time
}

func (e *BusyError) Error() string {
	where := fmt.Sprintf("pid %d", e.PID)
	if e.Host != "" {
		where += " on " + e.Host
	}
	return fmt.Sprintf("session %s is busy (running in %s since %s); wait for it to finish or use another session",
		e.SessionID, where, e.Since.Local().Format("15:04:05"))
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// ErrDiskFull is returned (wrapped, as a *DiskFullError) when a write
// failed because the disk holding the database is full. Test with
// errors.Is.
var ErrDiskFull = errors.New("disk full")

// DiskFullError says the database's disk is full, what was not stored, and
// what to do.
type DiskFullError struct {
	Dir  string // tandem's data folder (the database's folder)
	What string // what was not stored, e.g. "the model's reply"; empty: a write
	Err  error
}

func (e *DiskFullError) Error() string {
	what := "tandem's database cannot be written"
	if e.What != "" {
		what = "tandem could not store " + e.What
	}
	return fmt.Sprintf("the disk holding tandem's data folder %s is full, so %s. Free space on that disk "+
		"(old sessions: `tandem sessions delete ID`; long tool outputs are kept under %s), then resume the session with --continue or --resume (%v)",
		e.Dir, what, e.Dir, e.Err)
}

func (e *DiskFullError) Is(target error) bool { return target == ErrDiskFull }
func (e *DiskFullError) Unwrap() error        { return e.Err }
