package main

import (
	"fmt"
	"io"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
	"github.com/rowflow/rowflow/internal/bench/mapfilter"
)

// report prints the machine, the method and a Markdown table of res.
// loadBefore and loadAfter are the load averages around the measurement.
func report(w io.Writer, cfg config, res []result, loadBefore, loadAfter string) {
	ref := map[string]result{}
	for _, r := range res {
		ref[r.v.name] = r
	}
	fmt.Fprintf(w, "Map → Filter → count over %d int64 values (map v → 3v, keep even; count %d)\n\n",
		cfg.n, mapfilter.Want(cfg.n))
	fmt.Fprintln(w, benchutil.Machine())
	if loadBefore != "" {
		fmt.Fprintf(w, "load average before: %s, after: %s\n", loadBefore, loadAfter)
	}
	fmt.Fprintf(w, "median of %d rounds after one warm-up; rowflow partition size %d, chunk size %d\n\n",
		cfg.rounds, cfg.part, mapfilter.ChunkSize)

	fmt.Fprintln(w, "| variant | values | ns/value | vs (b) hand | vs (b') hand-funcs | vs (a) go-streams | vs (c) loop | CPU ns/value | allocs/value |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range res {
		fmt.Fprintf(w, "| %s | %s | %.2f | %s | %s | %s | %s | %.2f | %.4g |\n", r.v.name, count(r.n), r.perElem(),
			speed(ref[nameHand], r), speed(ref[nameHandFuncs], r), speed(ref[nameGoStreams], r), speed(ref[nameLoop], r),
			r.cpuPerElem(), r.allocsPerElem())
	}
	fmt.Fprintln(w)
	for _, r := range res {
		fmt.Fprintf(w, "- %s: %s\n", r.v.name, r.v.desc)
	}
	if rf, ok := ref[nameRowflow]; ok {
		fmt.Fprintf(w, "\nLoops against the same pipeline into sinks.Count (aim ≥ 0.8×), wall time (CPU time): flow.Items %s (%s), flow.Values %s (%s).\n",
			speed(rf, ref[nameItems]), cpuSpeed(rf, ref[nameItems]), speed(rf, ref[nameValues]), cpuSpeed(rf, ref[nameValues]))
		fmt.Fprintf(w, "A flow.Items loop that reads each row ID: %s (%s).\n", speed(rf, ref[nameItemIDs]), cpuSpeed(rf, ref[nameItemIDs]))
		fmt.Fprintf(w, "Counters on (flow.Monitor) against off (aim ≥ 0.97×): %s (%s).\n",
			speed(rf, ref[nameMonitored]), cpuSpeed(rf, ref[nameMonitored]))
	}
	fmt.Fprintln(w, "\nSpeed vs X is X's time per value divided by the variant's: above 1× is faster than X.")
	if gs, ok := ref[nameGoStreams]; ok && gs.n != cfg.n {
		fmt.Fprintf(w, "go-streams ran on the first %s values; its time is compared per value.\n",
			count(ref[nameGoStreams].n))
	}
}

// speed returns how many times faster r is than base, per value.
func speed(base, r result) string {
	if base.n == 0 || r.n == 0 {
		return "–" // not run (-only)
	}
	switch x := base.perElem() / r.perElem(); {
	case x >= 10:
		return fmt.Sprintf("%.0f×", x)
	case x >= 0.1:
		return fmt.Sprintf("%.2f×", x)
	default:
		return fmt.Sprintf("%.2g×", x)
	}
}

// count formats n compactly: 10M, 1M, 250k, or n itself.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// cpuSpeed is speed for CPU time per value.
func cpuSpeed(base, r result) string {
	if base.n == 0 || r.n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f×", base.cpuPerElem()/r.cpuPerElem())
}
