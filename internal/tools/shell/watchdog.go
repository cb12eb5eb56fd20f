package shell

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// watchdogScript runs in a small shell beside tandem, one per session that
// ran a command. It reads "PGID START" lines (the session's command
// groups) until its standard input ends, which happens when tandem's end
// of the pipe closes: tandem died (kill -9, a crash) without closing the
// session, which stops the watchdog first. It then kills every recorded
// group still ours (the leader gone, or the pid still the process recorded,
// start time being field 22 of /proc/PID/stat) and every process that
// carries the session's tag ($1).
const watchdogScript = `tag=$1
gs=
while read -r g s; do gs="$gs $g:$s"; done
for e in $gs; do
	g=${e%%:*}; s=${e#*:}
	if read -r st < /proc/$g/stat; then
		set -- ${st##*) }
		shift 19
		[ "$1" = "$s" ] || continue
	fi 2>/dev/null
	kill -s KILL -- "-$g" 2>/dev/null
done
for f in $(grep -laF "TANDEM_PROCESS_TAG=$tag" /proc/[0-9]*/environ 2>/dev/null); do
	p=${f#/proc/}
	kill -s KILL "${p%/environ}" 2>/dev/null
done
`

// watchdog is the running watchdog and the write end of its input. A
// nil *watchdog does nothing.
type watchdog struct {
	mu  sync.Mutex
	w   *os.File
	cmd *exec.Cmd
}

// startWatchdog starts the session's watchdog; nil when it cannot (no
// /bin/sh): tandem still stops everything when it closes the session.
func startWatchdog(tag string) *watchdog {
	r, w, err := os.Pipe() // close-on-exec: no other child holds the write end
	if err != nil {
		return nil
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchdogScript, "tandem-watchdog", tag)
	cmd.Stdin = r
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	cmd.Dir = "/"
	// Its own group, so neither a terminal's Ctrl-C nor a kill of a
	// command's group reaches it; no death signal: it must outlive tandem.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil
	}
	go func() { _ = cmd.Wait() }()
	return &watchdog{w: w, cmd: cmd}
}

func (d *watchdog) add(g procGroup) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w != nil {
		fmt.Fprintf(d.w, "%d %d\n", g.pgid, g.start)
	}
}

// stop ends the watchdog without it killing anything.
func (d *watchdog) stop() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w == nil {
		return
	}
	_ = d.cmd.Process.Kill()
	d.w.Close()
	d.w = nil
}
