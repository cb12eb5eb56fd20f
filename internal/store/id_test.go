package store

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestIDsAreSinglePathComponents(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "../../..", "a/b", `a\b`, "/", "a\x00b", "a\nb", "a\x7fb", "a b", string(make([]byte, 129))} {
		if err := CheckID("session", bad); !errors.Is(err, ErrBadID) {
			t.Errorf("CheckID(%q) = %v, want ErrBadID", bad, err)
		}
		if p, err := JoinID("/data/x", "session", bad); err == nil {
			t.Errorf("JoinID(%q) = %s, want a refusal", bad, p)
		}
	}
	for _, good := range []string{"ses_01hzz", "123e4567-e89b-12d3-a456-426614174000", "s1", "a.b"} {
		p, err := JoinID("/data/x/", "session", good)
		if err != nil || p != filepath.Join("/data/x", good) {
			t.Errorf("JoinID(%q) = %s, %v", good, p, err)
		}
	}
	if CheckUUID("--session-id", "123E4567-e89b-12d3-a456-426614174000") != nil {
		t.Error("a UUID was refused")
	}
	for _, bad := range []string{"../../..", "ses_01hzz", "123e4567-e89b-12d3-a456-42661417400", "123e4567xe89b-12d3-a456-426614174000"} {
		if CheckUUID("--session-id", bad) == nil {
			t.Errorf("CheckUUID(%q) accepted", bad)
		}
	}
}
