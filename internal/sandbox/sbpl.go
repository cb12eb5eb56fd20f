package sandbox

import (
	"fmt"
	"strings"
)

// SBPL is the policy as a macOS sandbox-exec profile (Sandbox Profile
// Language): everything is allowed but what the policy refuses, the
// later rule winning: no write but under the write roots, the temporary
// folder and the device files a program writes; the read-only places
// inside them stay read-only; no read or write of a secret path; no
// network but loopback, where the launcher's forward to tandem's proxy
// listens (macOS has no private network: loopback is the machine's, so
// other local services are reachable too; docs/sandbox.md).
// Generated on every system (so it is tested everywhere); only
// sandbox_darwin.go uses it.
func SBPL(p Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n")
	b.WriteString("(deny file-write*)\n")
	writable := append(append([]string(nil), p.WriteRoots...), p.TempDir)
	var allow []string
	for _, d := range writable {
		if d != "" {
			allow = append(allow, "(subpath "+sbplString(d)+")")
		}
	}
	for _, d := range sbplDevices {
		allow = append(allow, "(subpath "+sbplString(d)+")")
	}
	// Terminals and the descriptors a shell opens by name.
	allow = append(allow, `(regex #"^/dev/ttys[0-9]+$")`, `(subpath "/dev/fd")`)
	fmt.Fprintf(&b, "(allow file-write*\n  %s)\n", strings.Join(allow, "\n  "))
	if len(p.ReadOnly) > 0 {
		var ro []string
		for _, d := range p.ReadOnly {
			ro = append(ro, "(subpath "+sbplString(d)+")")
		}
		fmt.Fprintf(&b, "(deny file-write*\n  %s)\n", strings.Join(ro, "\n  "))
	}
	if len(p.DenyRead) > 0 {
		var deny []string
		for _, d := range p.DenyRead {
			deny = append(deny, "(subpath "+sbplString(d)+")")
		}
		fmt.Fprintf(&b, "(deny file-read* file-write*\n  %s)\n", strings.Join(deny, "\n  "))
	}
	b.WriteString("(deny network*)\n")
	b.WriteString(`(allow network-bind network-inbound (local ip "localhost:*"))` + "\n")
	b.WriteString(`(allow network-outbound (remote unix-socket))` + "\n")
	b.WriteString(`(allow network-outbound (remote ip "localhost:*"))` + "\n")
	b.WriteString("(deny process-info* (target others))\n")
	return b.String()
}

// sbplDevices are the device files any program may write on macOS (the
// bit bucket, the terminal, the random sources).
var sbplDevices = []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/ptmx", "/dev/random", "/dev/urandom", "/dev/dtracehelper"}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
