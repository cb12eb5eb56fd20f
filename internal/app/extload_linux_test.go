//go:build linux

package app

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"github.com/tandem-agent/tandem/internal/session"
)

// opens counts, through inotify, the times files named name in dir are
// opened while f runs.
func opens(t *testing.T, dir, name string, f func()) int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer syscall.Close(fd)
	// Closes are watched too: inotify merges an event with the last one
	// still queued when they are the same, so two opens in a row would
	// count as one.
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_OPEN|syscall.IN_CLOSE_NOWRITE); err != nil {
		t.Fatal(err)
	}
	f()
	n := 0
	buf := make([]byte, 64*1024)
	for {
		r, err := syscall.Read(fd, buf)
		if r <= 0 || err != nil {
			return n
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= r; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			raw := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			for i, b := range raw {
				if b == 0 {
					raw = raw[:i]
					break
				}
			}
			if string(raw) == name && ev.Mask&syscall.IN_OPEN != 0 {
				n++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// A session start in an untrusted folder reads each project skill and
// agent file once: the same load gives the trust findings (what is left
// out) and the session's Skill and Agent tools.
func TestSessionStartReadsSkillsOnce(t *testing.T) {
	a, work := testApp(t, map[string]string{"ANTHROPIC_API_KEY": "sk-test"})
	skill := filepath.Join(work, ".claude/skills/deploy")
	writeTestFile(t, filepath.Join(skill, "SKILL.md"), "---\nname: deploy\ndescription: d\nallowed-tools: Bash(touch:*)\n---\nbody\n")
	agents := filepath.Join(work, ".claude/agents")
	writeTestFile(t, filepath.Join(agents, "rev.md"), "---\nname: rev\ndescription: d\nmodel: openai/gpt-5\n---\nReview.\n")
	var l *session.Live
	agentOpens := 0
	skillOpens := opens(t, skill, "SKILL.md", func() {
		agentOpens = opens(t, agents, "rev.md", func() {
			var err error
			if l, err = a.Manager.Open(context.Background(), session.OpenRequest{Cwd: work, Mode: "normal"}); err != nil {
				t.Fatal(err)
			}
		})
	})
	defer l.Close()
	if skillOpens != 1 || agentOpens != 1 {
		t.Errorf("a session start opened SKILL.md %d times and the agent file %d times, want 1 each", skillOpens, agentOpens)
	}
	s := l.Equipment().(*Equipment).settings
	if len(s.LeftOut) != 2 {
		t.Errorf("left out %+v, want the skill's allowed-tools and the agent's model", s.LeftOut)
	}
	if _, ok := l.Tools().Get("Skill"); !ok {
		t.Error("no Skill tool")
	}
}
