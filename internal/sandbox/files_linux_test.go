package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileDenial(t *testing.T) {
	l := newLayout(t)
	s := &Sandbox{policy: l.policy()}
	link := filepath.Join(l.ws, "key")
	os.Symlink(l.secret, link)
	outLink := filepath.Join(l.ws, "out")
	os.Symlink(filepath.Dir(l.outside), outLink)
	cases := []struct {
		path          string
		write, folder bool
		rule          string // "" allowed
	}{
		{l.secret, false, false, RuleSecret},
		{filepath.Join(l.home, ".ssh"), false, true, RuleSecret},
		{link, false, false, RuleSecret},
		{filepath.Join(l.home, ".ssh", "new"), true, false, RuleSecret},
		{l.home, false, true, RuleSecret}, // a search of the home folder would read ~/.ssh
		{filepath.Join(l.ws, "..", "outside.txt"), true, false, RuleWriteOutside},
		{filepath.Join(outLink, "x.txt"), true, false, RuleWriteOutside},
		{filepath.Join(l.home, "notes.txt"), true, false, RuleWriteOutside},
		{filepath.Join(l.home, "notes.txt"), false, false, ""},
		{filepath.Join(l.ws, "a", "new.txt"), true, false, ""},
		{filepath.Join(l.tmp, "t.txt"), true, false, ""},
		{l.ws, false, true, ""},
	}
	for _, c := range cases {
		ev, ok := s.FileDenial(c.path, c.write, c.folder)
		switch {
		case c.rule == "" && !ok:
			t.Errorf("%s (write %v): refused: %s", c.path, c.write, ev.Message)
		case c.rule != "" && ok:
			t.Errorf("%s (write %v): allowed; want refused by %s", c.path, c.write, c.rule)
		case c.rule != "" && (ev.Meta["rule"] != c.rule || !strings.Contains(ev.Message, "the sandbox refused")):
			t.Errorf("%s: %v %q; want rule %s", c.path, ev.Meta, ev.Message, c.rule)
		}
	}
	ev, _ := s.FileDenial(filepath.Join(l.ws, "..", "outside.txt"), true, false)
	if !strings.Contains(ev.Message, "--add-dir") || ev.Meta["allow"] == nil {
		t.Errorf("a write outside names no fix: %q %v", ev.Message, ev.Meta)
	}
}
