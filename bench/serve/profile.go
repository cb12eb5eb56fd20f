package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// startProfiles starts the profiles asked for; stop writes them.
func startProfiles(cpu, mutex, block, tr string) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return stop, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return stop, err
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if tr != "" {
		f, err := os.Create(tr)
		if err != nil {
			return stop, err
		}
		if err := trace.Start(f); err != nil {
			return stop, err
		}
		stops = append(stops, func() { trace.Stop(); f.Close() })
	}
	for _, p := range []struct {
		name, file string
		on         func()
	}{
		{"mutex", mutex, func() { runtime.SetMutexProfileFraction(1) }},
		{"block", block, func() { runtime.SetBlockProfileRate(1000) }},
	} {
		if p.file == "" {
			continue
		}
		p.on()
		stops = append(stops, func() {
			if err := writeProfile(p.name, p.file); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
			}
		})
	}
	return stop, nil
}

func writeProfile(name, file string) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup(name).WriteTo(f, 0)
}
