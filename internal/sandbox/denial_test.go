package sandbox

import (
	"testing"
)

func TestDenialEventsInferred(t *testing.T) {
	s := &Sandbox{policy: Policy{WriteRoots: []string{"/w/proj"}, TempDir: "/t", DenyRead: []string{"/home/u/.ssh"}}}
	out := "cat: /home/u/.ssh/id_rsa: Permission denied\n" +
		"sh: 1: cannot create ../outside.txt: Permission denied\n" +
		"PermissionError: [Errno 13] Permission denied: '/home/u/evil.txt'\n" +
		"cat: /w/proj/locked: Permission denied\n" + // inside: the file's own mode
		"open /etc/x.conf: permission denied\n" +
		"Error: EACCES: permission denied, open '/home/u/node.txt'\n" +
		"sh: 1: cannot create .git/modules/lib/hooks/post-checkout: Read-only file system\n"
	s.policy.ReadOnly = []string{"/w/proj/.git/modules/lib/hooks"}
	s.caps.UserNS = true
	evs := s.DenialEvents(out, "/w/proj")
	want := map[string]string{"/w/proj/.git/modules/lib/hooks/post-checkout": RuleReadOnly, "/home/u/.ssh/id_rsa": RuleSecret, "/w/outside.txt": RuleWriteOutside,
		"/home/u/evil.txt": RuleWriteOutside, "/etc/x.conf": RuleWriteOutside, "/home/u/node.txt": RuleWriteOutside}
	got := map[string]string{}
	for _, e := range evs {
		got[e.Meta["path"].(string)] = e.Meta["rule"].(string)
	}
	for p, r := range want {
		if got[p] != r {
			t.Errorf("%s: rule %q, want %q (all: %v)", p, got[p], r, got)
		}
	}
	if _, ok := got["/w/proj/locked"]; ok || len(got) != len(want) {
		t.Errorf("got %v, want exactly %v", got, want)
	}
}
