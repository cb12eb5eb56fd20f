package shell

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/tandem-agent/tandem/internal/tool"
)

// procTagVar marks every process a session's commands start. A process
// group is not enough to find them all: `setsid cmd &`, `nohup cmd &`,
// `(cmd &)` and double forks leave the group (and re-parent to init) but
// keep their environment, so the tag still names their session. When the
// session ends, every process carrying its tag is stopped.
const procTagVar = "TANDEM_PROCESS_TAG"

const procTagKey = "shell.proctag"

// sessionTag returns the session's process tag, registering the cleanup
// that stops its processes when the session closes.
func sessionTag(env *tool.Env) string {
	created := false
	tag := env.State.Load(procTagKey, func() any {
		created = true
		var b [8]byte
		_, _ = rand.Read(b[:])
		return fmt.Sprintf("%d-%s-%s", os.Getpid(), env.SessionID, hex.EncodeToString(b[:]))
	}).(string)
	if created {
		env.State.OnClose(func() { killTagged(tag, killGrace) })
	}
	return tag
}

// killTagged stops every process carrying tag: SIGTERM, then SIGKILL for
// those still there after grace.
func killTagged(tag string, grace time.Duration) {
	pids := taggedPids(tag)
	if len(pids) == 0 {
		return
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		alive := false
		for _, pid := range pids {
			if processAlive(pid) {
				alive = true
				break
			}
		}
		if !alive {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range taggedPids(tag) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
