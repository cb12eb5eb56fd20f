package hooks

import "os/exec"

// SetConfine makes command hooks run inside the session's OS sandbox
// (internal/sandbox); nil: outside. Call it before the first hook runs.
func (r *Runner) SetConfine(confine func(*exec.Cmd) error) { r.confine = confine }

func (r *Runner) confineCmd(cmd *exec.Cmd) error {
	if r.confine == nil {
		return nil
	}
	return r.confine(cmd)
}

// SetDenials hands what each command hook printed (stdout and stderr) and
// its folder to report, which tells what the sandbox refused it
// (sandbox_denial events); nil: nothing is reported. Call it with
// SetConfine.
func (r *Runner) SetDenials(report func(output, dir string)) { r.denials = report }
