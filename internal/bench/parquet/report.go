package main

import (
	"fmt"
	"io"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
)

// report prints the machine, the method and a Markdown table of the
// comparisons over res. loadBefore and loadAfter are the load averages
// around the measurement.
func report(w io.Writer, cfg config, res []result, loadBefore, loadAfter string) {
	byName := map[string]result{}
	for _, r := range res {
		byName[r.v.name] = r
	}
	fmt.Fprintf(w, "Parquet reads and writes, %d rows of Row (int64, int32, float64, 40-byte string, list of ~16 int32), "+
		"zstd, row groups of %d rows; file %s (%.1f MB)\n\n", cfg.rows, rowGroupRows, cfg.path, float64(cfg.size)/1e6)
	fmt.Fprintln(w, benchutil.Machine())
	if loadBefore != "" {
		fmt.Fprintf(w, "load average before: %s, after: %s\n", loadBefore, loadAfter)
	}
	fmt.Fprintf(w, "median of %d rounds after one warm-up; reads and writes measured as two separate sets of rounds\n\n", cfg.rounds)

	fmt.Fprintln(w, "| variant | rows/s | vs | ratio | aim | met? | CPU ns/row | CPU ratio |")
	fmt.Fprintln(w, "|---|--:|---|--:|--:|---|--:|--:|")
	for _, c := range comparisons {
		r, ok := byName[c.variant]
		if !ok {
			continue
		}
		ratio, aim, met, cpuRatio := "", "", "", ""
		if base, ok := byName[c.base]; ok {
			x := base.d.Seconds() / r.d.Seconds()
			ratio, aim = fmt.Sprintf("%.2f×", x), "info"
			if c.aim > 0 {
				aim, met = fmt.Sprintf("≥ %.2g×", c.aim), "yes"
				if x < c.aim {
					met = "**no**"
				}
			}
			if r.cpu > 0 {
				cpuRatio = fmt.Sprintf("%.2f×", base.cpu.Seconds()/r.cpu.Seconds())
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.0f | %s |\n", r.v.name, rate(r.rowsPerSec()), c.base, ratio,
			aim, met, r.cpuPerRow(), cpuRatio)
	}
	fmt.Fprintln(w)
	for _, r := range res {
		fmt.Fprintf(w, "- %s: %s\n", r.v.name, r.v.desc)
	}
	fmt.Fprintln(w, "\nThe ratio is the median wall-clock time of the variant named under vs divided by the row's: above 1× is faster.")
	fmt.Fprintln(w, "CPU ns/row is the median CPU time (user and system, all goroutines, GC included) the process used per row;")
	fmt.Fprintln(w, "the CPU ratio compares it as the ratio compares wall-clock time. For a serial variant, a ratio well below")
	fmt.Fprintln(w, "its CPU ratio means that it waited: for the CPU, the disk, or another goroutine. For a parallel one, the")
	fmt.Fprintln(w, "ratio divided by the CPU ratio is the number of CPUs it kept busy, relative to its base.")
}

// rate formats a throughput compactly: 12.3M, 456k.
func rate(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.3gM", x/1e6)
	case x >= 1e3:
		return fmt.Sprintf("%.3gk", x/1e3)
	}
	return fmt.Sprintf("%.3g", x)
}
