package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tandem-agent/tandem/internal/secrets"
)

// handOverSecrets runs first in main: a process started with credentials
// in its environment (or `serve --token`) re-executes itself with them
// moved out of what /proc/PID/environ and /proc/PID/cmdline show, so a
// command the model runs cannot read them there (secrets.Handover); the
// re-executed process takes them back into its own environment
// (secrets.Receive). --version and help are not worth an exec.
func handOverSecrets(argv []string, stderr io.Writer) {
	received, err := secrets.Receive()
	if err != nil {
		fmt.Fprintln(stderr, "tandem:", err)
	}
	if received || len(argv) == 0 || skipsHandover(argv[1:]) {
		return
	}
	args, extra := takeServeToken(argv[1:])
	if len(extra) > 0 {
		fmt.Fprintln(stderr, "tandem serve: --token puts the token in the process list, where every user of this machine can read it; "+
			"use --token-file FILE or TANDEM_TOKEN instead (tandem moves it out of its command line at start)")
	}
	// On success Handover does not return; on failure the process goes on
	// as it was started (with the credentials where they were).
	_ = secrets.Handover(append([]string{argv[0]}, args...), os.Environ(), extra)
}

// skipsHandover is true for invocations that only print: --version, help.
func skipsHandover(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "-h" || a == "--help" || a == "--version":
			return true
		case i == 0 && (a == "help" || a == "completion"):
			return true
		}
	}
	return false
}

// takeServeToken removes `--token VALUE` / `--token=VALUE` from a `tandem
// serve` command line and returns it as TANDEM_TOKEN, which serve reads
// after the hand-over.
func takeServeToken(args []string) (rest, extra []string) {
	sub := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--home" {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			sub = i
			break
		}
	}
	if sub < 0 || args[sub] != "serve" {
		return args, nil
	}
	rest = append(rest, args[:sub+1]...)
	for i := sub + 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i:]...)
			return rest, extra
		case a == "--token" && i+1 < len(args):
			extra = append(extra, "TANDEM_TOKEN="+args[i+1])
			i++
		case strings.HasPrefix(a, "--token="):
			extra = append(extra, "TANDEM_TOKEN="+strings.TrimPrefix(a, "--token="))
		default:
			rest = append(rest, a)
		}
	}
	return rest, extra
}
