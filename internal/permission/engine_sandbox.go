package permission

// sandboxed lays the OS sandbox over a Bash verdict. With the sandbox on
// (EngineOptions.Sandboxed), the kernel refuses what leaves it — writes
// outside the roots, secret reads, hosts off the allow-list — so a command
// asked about only for want of proof that it stays inside runs without a
// question in every mode but explore (as Claude Code's auto-allow in its
// sandbox); deny rules, ask rules and protected paths still decide. A
// command that asks to run outside (dangerouslyDisableSandbox) is always
// asked, even in trust mode: the sandbox is the user's choice, not the
// model's.
func (e *Engine) sandboxed(mode Mode, v verdict, leave bool) verdict {
	if !e.opts.Sandboxed || v.action == ActionDeny {
		return v
	}
	const outside = "runs outside the sandbox (dangerouslyDisableSandbox)"
	if leave {
		if v.action != ActionAsk {
			return verdict{action: ActionAsk, reason: "the command " + outside, noAlways: true, firm: true}
		}
		v.reason = outside + "; " + v.reason
		v.noAlways, v.suggest = true, nil
		return v
	}
	if v.action == ActionAsk && !v.firm && mode != Explore {
		return verdict{action: ActionAllow, rule: "sandbox"}
	}
	return v
}
