package backend

import (
	"fmt"
	"strings"
	"time"

	"github.com/tandem-agent/tandem/internal/store"
)

// PrepareUser checks a new user's name and fills in its id and time, the
// same for every backend.
func PrepareUser(u store.User, now time.Time) (store.User, error) {
	if err := CheckUserName(u.Name); err != nil {
		return store.User{}, err
	}
	if u.ID == "" {
		u.ID = NewID("usr_")
	}
	if u.CreatedAt.IsZero() {
		u.CreatedAt = now
	}
	return u, nil
}

// CheckUserName allows 1 to 64 letters, digits and . _ - @ (an email
// address is a good name), not starting with "usr_" (an id's form).
func CheckUserName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("user name %q must be 1 to 64 characters", name)
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@+", r)
		if !ok {
			return fmt.Errorf("user name %q may hold only letters, digits and . _ - @ +", name)
		}
	}
	if strings.HasPrefix(name, "usr_") {
		return fmt.Errorf("user name %q must not start with usr_ (the form of a user id)", name)
	}
	return nil
}

// PrepareAudit fills in an entry's id and time.
func PrepareAudit(e store.AuditEntry, now time.Time) store.AuditEntry {
	if e.ID == "" {
		e.ID = NewID("aud_")
	}
	if e.At.IsZero() {
		e.At = now
	}
	return e
}

// AuditLimit is a query's row limit: 100 unless set.
func AuditLimit(q store.AuditQuery) int {
	if q.Limit <= 0 {
		return 100
	}
	return q.Limit
}
