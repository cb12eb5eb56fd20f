package procstat

import (
	"errors"
	"os"
	"testing"
)

func TestParse(t *testing.T) {
	line := []byte("4242 (a (b) c) S 17 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10")
	s, err := parse(4242, line)
	if err != nil || s.State != 'S' || s.PPID != 17 || s.Start != 987654 || s.Gone() {
		t.Fatalf("parse = %+v, %v", s, err)
	}
	if z, _ := parse(1, []byte("1 (x) Z 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0")); !z.Gone() {
		t.Error("a zombie is not gone")
	}
	for _, bad := range []string{"", "1 x S 0", "1 (x) S 0 1"} {
		if _, err := parse(1, []byte(bad)); err == nil {
			t.Errorf("parse(%q) took it", bad)
		}
	}
}

func TestReadSelfAndMissing(t *testing.T) {
	s, err := Read(os.Getpid())
	if err != nil || s.Gone() || s.PPID != os.Getppid() || s.Start == 0 {
		t.Fatalf("Read(self) = %+v, %v", s, err)
	}
	if _, err := Read(1 << 30); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read of no process: %v, want ErrNotExist", err)
	}
}
