package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/bench/benchutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// Memory is measured in child processes (this command run again with
// -child), so that each peak RSS is one pipeline's alone.

const childPrefix = "shapebench-child:"

// tokens is a tokenize-like map: row i becomes 1 to 64 int32 tokens.
func tokens(i int64) ([]int32, error) {
	t := make([]int32, 1+(i*7919)%64)
	for k := range t {
		t[k] = int32(i) + int32(k)
	}
	return t, nil
}

// batching is the measured batching pipeline over n rows.
func batching(n int) *flow.Pipeline {
	return flow.From(sources.Generate(int64(n), func(i int64) (int64, error) { return i, nil })).
		Via(operators.Map(tokens)).Parallel(2).
		Via(operators.BucketByLength(func(t []int32) int { return len(t) },
			operators.Buckets([]int{16, 32, 48}, []int{64, 32, 21, 16}))).
		Via(operators.Pad(int32(0), operators.PadMultiple(8))).Parallel(2).
		Via(operators.Prefetch[operators.Padded[int32]](4))
}

// cached is the pipeline the caches keep: n token rows.
func cached(n int) *flow.Pipeline {
	return flow.From(sources.Generate(int64(n), tokens)).Parallel(2)
}

// runChild runs one measurement and prints the rows it read and its peak.
func runChild(ctx context.Context, mode string, n int, dir string) error {
	var rows int64
	var err error
	switch mode {
	case "batching":
		err = batching(n).To(sinks.Count[operators.Padded[int32]](&rows)).Run(ctx)
	case "disk-build", "disk-replay":
		c := operators.Cache[[]int32](cached(n), operators.OnDisk(filepath.Join(dir, fmt.Sprintf("cache-%d", n))))
		err = flow.From(c).Parallel(2).To(sinks.Count[[]int32](&rows)).Run(ctx)
	case "memory-cache":
		c := operators.Cache[[]int32](cached(n))
		if err = flow.From(c).To(sinks.Count[[]int32](&rows)).Run(ctx); err == nil {
			err = flow.From(c).Parallel(2).To(sinks.Count[[]int32](&rows)).Run(ctx)
		}
	default:
		err = fmt.Errorf("unknown child mode %q", mode)
	}
	if err != nil {
		return err
	}
	hwm, err := benchutil.PeakRSS()
	if err != nil {
		return err
	}
	fmt.Printf("%s %d %d\n", childPrefix, rows, hwm)
	return nil
}

// child runs this command as a child in mode over n rows, with env added
// to its environment, and returns its peak RSS in KiB.
func child(mode string, n int, dir string, env ...string) (int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe, "-child", mode, "-mem-rows", strconv.Itoa(n), "-dir", dir)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("child %s %d: %v: %s", mode, n, err, errOut.String())
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == childPrefix {
			return strconv.ParseInt(f[2], 10, 64)
		}
	}
	return 0, fmt.Errorf("child %s %d printed no result", mode, n)
}

// memChildren is the number of children measured per size: a peak RSS
// moves by several MiB between runs of one size.
const memChildren = 7

// memoryRows prints the memory rows of the table: medians of runs.
func memoryRows(w io.Writer, n, runs int) error {
	dir, err := os.MkdirTemp("", "shapebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, n := range []int{n, 4 * n} {
		if _, err := child("disk-build", n, dir); err != nil {
			return err
		}
	}
	for _, m := range []struct {
		mode, desc string
		flat       bool
		env        []string
	}{
		{"batching", "Map(tokenize).Parallel(2) → BucketByLength → Pad.Parallel(2) → Prefetch(4)", true, nil},
		{"disk-replay", "replay of a disk cache (OnDisk)", true, nil},
		// Without the concurrent mark, no garbage is allocated while a
		// collection marks, which a run four times longer otherwise
		// samples more often: what is left is the pipeline's own memory.
		{"disk-replay", "the same, GODEBUG=gcstoptheworld=1 (diagnostic: no garbage allocated during marking)", false, []string{"GODEBUG=gcstoptheworld=1"}},
		{"memory-cache", "a memory cache, built and replayed (grows with the data, for contrast)", false, nil},
	} {
		// The children of the two sizes alternate, as the speed rows'
		// variants do: the machine's load, which moves the collector's
		// timing and so each peak, then weighs on both sizes alike.
		var samples [2][]int64
		for range runs {
			for i, rows := range []int{n, 4 * n} {
				p, err := child(m.mode, rows, dir, m.env...)
				if err != nil {
					return err
				}
				samples[i] = append(samples[i], p)
			}
		}
		var peaks [2]int64
		for i, s := range samples {
			slices.Sort(s)
			peaks[i] = s[len(s)/2]
		}
		ratio := float64(peaks[1]) / float64(peaks[0])
		aim, ok := "≤ 1.10×", met(ratio <= 1.10)
		if !m.flat {
			aim, ok = "info", ""
		}
		fmt.Fprintf(w, "| %s | %.1f MiB | %.1f MiB | %.2f× | %s | %s |\n", m.desc,
			float64(peaks[0])/1024, float64(peaks[1])/1024, ratio, aim, ok)
	}
	return nil
}

// run prints the whole table, or the part only names.
func run(ctx context.Context, w io.Writer, only string, rows, values, rounds, memRows int) error {
	if only == "" || only == "speed" {
		fmt.Fprintf(w, "| stage | input | rowflow | hand loop | hand / rowflow | aim | met? |\n|---|--:|--:|--:|--:|--:|---|\n")
		if err := speed(ctx, w, rows, rounds); err != nil {
			return err
		}
		if err := mapFilterRows(ctx, w, values, rounds); err != nil {
			return err
		}
	}
	if only == "" || only == "prefetch" {
		fmt.Fprintf(w, "\n| prefetch | input | wall time | slower side alone | wall / slower | aim | met? |\n|---|--:|--:|--:|--:|--:|---|\n")
		if err := prefetchRows(ctx, w, rounds); err != nil {
			return err
		}
	}
	if only == "" || only == "memory" {
		fmt.Fprintf(w, "\n| peak RSS (child processes, median of %d) | %d rows | %d rows | ratio | aim | met? |\n|---|--:|--:|--:|--:|---|\n", memChildren, memRows, 4*memRows)
		return memoryRows(w, memRows, memChildren)
	}
	return nil
}
