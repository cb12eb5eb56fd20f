//go:build !linux

package procstat

import "errors"

// Read is Linux's only: elsewhere there is no /proc/PID/stat.
func Read(int) (Stat, error) {
	return Stat{}, errors.ErrUnsupported
}
