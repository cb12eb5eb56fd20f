package main

import (
	"errors"

	"github.com/spf13/pflag"
)

// sandboxFlags are --sandbox and --no-sandbox, for every command that
// opens sessions (run, the TUI, serve, acp).
type sandboxFlags struct{ on, off bool }

func (s *sandboxFlags) add(fl *pflag.FlagSet) {
	fl.BoolVar(&s.on, "sandbox", false, "run commands, MCP stdio servers and hooks inside the OS sandbox (docs/sandbox.md), whatever the config says")
	fl.BoolVar(&s.off, "no-sandbox", false, "run them outside the OS sandbox, whatever the config says")
}

// mode is the choice for app.Options.Sandbox: "on", "off" or "" (the
// config decides).
func (s sandboxFlags) mode() (string, error) {
	switch {
	case s.on && s.off:
		return "", errors.New("--sandbox and --no-sandbox together: give one")
	case s.on:
		return "on", nil
	case s.off:
		return "off", nil
	}
	return "", nil
}
