package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Targets from the project's performance goals.
const (
	targetOverheadPerStep = 3 * time.Millisecond
	targetPeakRSS         = 40 << 20
	targetVersion         = 10 * time.Millisecond
)

type stat struct{ min, median, max float64 }

func stats(xs []float64) stat {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return stat{min: s[0], median: med, max: s[n-1]}
}

func walls(ss []sample) stat { return statOf(ss, func(s sample) float64 { return ms(s.wall) }) }
func cpus(ss []sample) stat  { return statOf(ss, func(s sample) float64 { return ms(s.cpu) }) }
func rsss(ss []sample) stat {
	return statOf(ss, func(s sample) float64 { return float64(s.maxRSS) / (1 << 20) })
}

func statOf(ss []sample, f func(sample) float64) stat {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return stats(xs)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "MISS"
}

func (r *results) print(w io.Writer) {
	n := float64(r.steps)
	sw, sc, sr := walls(r.session), cpus(r.session), rsss(r.session)
	uw, ur := walls(r.startup), rsss(r.startup)
	bw, bc := walls(r.base), cpus(r.base)
	vw, vr := walls(r.version), rsss(r.version)
	iw, ir := walls(r.installedSession), rsss(r.installedSession)
	ivw, ivr := walls(r.installedVersion), rsss(r.installedVersion)

	fmt.Fprintf(w, "tandem session benchmark: %d steps x (Read, Grep, Bash) + final answer, %d runs\n", r.steps, len(r.session))
	if r.rg == "" {
		fmt.Fprintln(w, "note: rg not found; Grep uses the pure-Go engine and the baseline has no grep processes")
	}
	fmt.Fprintf(w, "%-34s %10s %10s %10s\n", "", "min", "median", "max")
	row := func(name string, s stat, unit string) {
		fmt.Fprintf(w, "%-34s %10.1f %10.1f %10.1f  %s\n", name, s.min, s.median, s.max, unit)
	}
	row("session wall", sw, "ms")
	row("session CPU user+sys (w/ tools)", sc, "ms")
	row("session peak RSS", sr, "MiB")
	row("  read from disk: session wall", iw, "ms")
	row("  read from disk: session peak RSS", ir, "MiB")
	row("baseline wall (tools alone)", bw, "ms")
	row("baseline CPU (tool processes)", bc, "ms")
	row("startup run wall (1 text step)", uw, "ms")
	row("startup run peak RSS", ur, "MiB")
	row("tandem --version wall", vw, "ms")
	row("tandem --version peak RSS", vr, "MiB")
	row("  read from disk: --version wall", ivw, "ms")
	row("  read from disk: --version RSS", ivr, "MiB")

	// Pair each session run with the baseline taken right after it, so
	// load from other processes on the machine cancels out as far as it can.
	over := stats(r.pairedOverhead())
	overMed, overMin := over.median, over.min
	marginal := (sw.median - uw.median - bw.median) / n
	cpuPer := (sc.median - bc.median) / n
	fmt.Fprintln(w)
	fmt.Fprintf(w, "own overhead per step (wall - baseline)/steps: median %.2f ms, min %.2f ms (paired per run)\n", overMed, overMin)
	fmt.Fprintf(w, "  of which startup (one-step run) amortised:   %.2f ms; per-step beyond startup %.2f ms\n", uw.median/n, marginal)
	// Grep searches trees this small in-process, so its whole cost is
	// tandem's own; the line below does not credit tandem with rg's time.
	strict := stats(r.pairedOverheadNoGrep())
	fmt.Fprintf(w, "  Grep counted as own work (baseline without rg): median %.2f ms, min %.2f ms\n", strict.median, strict.min)
	fmt.Fprintf(w, "own CPU per step (CPU - baseline CPU)/steps:   %.2f ms\n", cpuPer)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "targets:")
	fmt.Fprintf(w, "  own overhead per step <= %v: %.2f ms  %s\n", targetOverheadPerStep, overMed, verdict(overMed <= ms(targetOverheadPerStep)))
	rssOK := func(s stat) string { return verdict(s.max <= float64(targetPeakRSS)/(1<<20)) }
	versionOK := func(s stat) string { return verdict(s.median < ms(targetVersion)) }
	fmt.Fprintf(w, "  peak RSS <= 40 MiB:            %.1f MiB  %s (as linked), %.1f MiB  %s (read from disk)\n",
		sr.max, rssOK(sr), ir.max, rssOK(ir))
	fmt.Fprintf(w, "  --version < %v:              %.1f ms  %s (as linked), %.1f ms  %s (read from disk)\n",
		targetVersion, vw.median, versionOK(vw), ivw.median, versionOK(ivw))
	fmt.Fprintln(w)
	r.prompt.print(w)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "for scale (figures from the issue, not measured here): Claude Code 2.1.332 ~2600 ms, 256 MiB; OpenCode 1.18 ~7300 ms, 576 MiB; tandem here %.0f ms, %.1f MiB\n", sw.median, sr.max)
}

// pairedOverheadNoGrep is pairedOverhead against a baseline without its
// rg calls.
func (r *results) pairedOverheadNoGrep() []float64 {
	out := make([]float64, len(r.session))
	for i := range r.session {
		out[i] = (ms(r.session[i].wall) - ms(r.base[i].wall-r.base[i].grepWall)) / float64(r.steps)
	}
	return out
}

// pairedOverhead is (session wall - baseline wall) / steps for each run, in
// milliseconds.
func (r *results) pairedOverhead() []float64 {
	out := make([]float64, len(r.session))
	for i := range r.session {
		out[i] = (ms(r.session[i].wall) - ms(r.base[i].wall)) / float64(r.steps)
	}
	return out
}
