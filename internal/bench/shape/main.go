// Command shapebench measures rowflow's batching stages against hand-written
// loops that compute the same output, the chunk-level Map→Filter against a
// hand-written chunk pipeline, Prefetch against the two sides it overlaps,
// and the peak memory of batching pipelines and the disk cache in child
// processes, and prints one table of ratios.
//
// # Running
//
// From the module root:
//
//	go run ./internal/bench/shape
//	go run ./internal/bench/shape -rows 200000 -rounds 5 -mem-rows 400000
//	go run ./internal/bench/shape -only memory
//
// # Method
//
// Each variant runs once to warm up, then -rounds times, alternating with
// its reference, and the medians are compared: a ratio above 1× means
// rowflow is faster than the reference. The rows are token lists of 1 to
// 64 int32 values, generated in memory: 2,000,000 by default, so that a
// run of Batch takes some 50 ms; with 400,000 (8–17 ms a run) one
// collection landing in one side's run moved the ratio by half.
//
//   - batch: Slice → Batch(32) into a counting sink, against a loop that
//     builds the same batches: the values, the member row IDs and the
//     folded batch ID.
//   - batch+pad: the same followed by Pad, against a loop that also pads.
//   - map→filter: -values int64s mapped v → 3v and filtered to the even
//     results on 2 workers, with one FilterMapChunks stage and with
//     MapChunks → FilterChunks, against the hand-written chunk pipeline of
//     internal/bench/mapfilter (the work internal/bench/pipeline measures). The
//     FilterMapChunks pair runs again on one processor (GOMAXPROCS=1),
//     for information: the ratio falls there, and moves toward it when
//     the machine's other work takes a core.
//   - prefetch: a source that takes a fixed time to prepare each batch,
//     consumed by a sink that waits a fixed time per batch (as a training
//     step waits for the accelerator). Without Prefetch the two add up;
//     with it the wall time is compared with the slower side alone.
//   - memory: the batching pipeline and a disk-cache replay run in child
//     processes over n and 4n rows; the table gives each peak RSS (VmHWM)
//     and their ratio. A memory cache is shown for contrast: it grows with
//     the data. A second replay row runs under GODEBUG=gcstoptheworld=1,
//     where nothing is allocated while a collection marks: it separates
//     the pipeline's memory from the concurrent collector's, whose
//     garbage allocated during marking counts as live until the next
//     collection and reaches a higher maximum in a longer run. The
//     default n is 1,000,000 and each size is measured in seven children,
//     the two sizes alternating.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
)

func main() {
	rows := flag.Int("rows", 2_000_000, "rows for the speed measurements")
	values := flag.Int("values", 10_000_000, "values for the map→filter measurements")
	rounds := flag.Int("rounds", 5, "measured rounds")
	memRows := flag.Int("mem-rows", 1_000_000, "rows of the smaller memory dataset (the larger has 4x)")
	only := flag.String("only", "", "measure only this part: speed, prefetch or memory")
	child := flag.String("child", "", "internal: run one memory measurement in this process")
	dir := flag.String("dir", "", "internal: the child's scratch directory")
	flag.Parse()
	if *child != "" {
		if err := runChild(context.Background(), *child, *memRows, *dir); err != nil {
			fmt.Fprintln(os.Stderr, "shapebench:", err)
			os.Exit(1)
		}
		return
	}
	if *rows < 1000 || *values < 1000 || *rounds < 1 || *memRows < 1000 {
		fmt.Fprintln(os.Stderr, "shapebench: -rows, -values and -mem-rows must be at least 1000, -rounds at least 1")
		os.Exit(2)
	}
	fmt.Println(benchutil.Machine())
	fmt.Printf("load average before: %s\n\n", benchutil.LoadAvg())
	if err := run(context.Background(), os.Stdout, *only, *rows, *values, *rounds, *memRows); err != nil {
		fmt.Fprintln(os.Stderr, "shapebench:", err)
		os.Exit(1)
	}
	fmt.Printf("\nload average after: %s\n", benchutil.LoadAvg())
}
