package sqlite

import (
	"errors"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isBusy reports whether err is SQLite's "database is locked" (any
// extended SQLITE_BUSY or SQLITE_LOCKED code).
func isBusy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// retryBusy runs fn until it returns something other than a busy error or
// busyTimeout has passed. It is for the few places where SQLite reports
// SQLITE_BUSY without waiting in its busy handler: chiefly two processes
// creating the same new database at once, when both switch it to WAL.
func retryBusy(fn func() error) error {
	deadline := time.Now().Add(busyTimeout)
	wait := 5 * time.Millisecond
	for {
		err := fn()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// isCorrupt reports SQLITE_CORRUPT and SQLITE_NOTADB: the file is damaged
// or is not a database.
func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqlite3.SQLITE_CORRUPT || code == sqlite3.SQLITE_NOTADB
}
