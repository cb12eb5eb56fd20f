// Package sandbox confines the processes tandem starts for the agent (Bash
// and its background jobs, MCP stdio servers, hooks, the claude CLI) inside
// a boundary the kernel enforces: Landlock for the filesystem (writes only
// under the policy's roots, reads everywhere except the secret paths),
// seccomp for what a coding task never needs (ptrace, mount, kernel
// modules, raw sockets, io_uring...), and, where unprivileged user
// namespaces work, a private network namespace whose only way out is
// tandem's proxy.
//
// The boundary is built by tandem itself: Confine rewrites an *exec.Cmd to
// re-execute the tandem binary as `tandem __sandbox-exec POLICY -- CMD...`
// (Exec is that entry point). That process is a process of its own, so
// what it restricts applies to it and its children only, never to tandem.
// See docs/sandbox.md for what it covers and what it does not.
package sandbox
