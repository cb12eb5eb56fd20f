package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to $TANDEM_CPUPROFILE when set, for
// benchmarks and performance work (go tool pprof tandem FILE).
func startProfile() (stop func()) {
	path := os.Getenv("TANDEM_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem: TANDEM_CPUPROFILE:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "tandem: TANDEM_CPUPROFILE:", err)
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
