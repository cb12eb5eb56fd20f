package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile to $TANDEM_CPUPROFILE and, when the
// process ends, a heap profile (allocations since start, live objects)
// to $TANDEM_MEMPROFILE, for benchmarks and performance work
// (go tool pprof tandem FILE).
func startProfile() (stop func()) {
	stopCPU := startCPUProfile()
	path := os.Getenv("TANDEM_MEMPROFILE")
	if path == "" {
		return stopCPU
	}
	return func() {
		stopCPU()
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tandem: TANDEM_MEMPROFILE:", err)
			return
		}
		defer f.Close()
		runtime.GC() // the live objects are those at the last collection
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintln(os.Stderr, "tandem: TANDEM_MEMPROFILE:", err)
		}
	}
}

func startCPUProfile() (stop func()) {
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
