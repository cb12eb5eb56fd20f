//go:build !unix

package plugin

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
