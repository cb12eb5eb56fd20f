//go:build !linux

package claudecode

// descendants is only implemented on Linux; elsewhere the process group
// kill is all there is.
func descendants(int) []int { return nil }
