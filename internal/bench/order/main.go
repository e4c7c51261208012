// Command orderbench measures rowflow's shuffles and combinations against
// references measured in the same run, and the peak memory of shuffling
// pipelines in child processes, and prints one table.
//
// # Running
//
// From the module root:
//
//	go run ./internal/bench/order
//	go run ./internal/bench/order -rows 2000000 -rounds 5 -mem-rows 2000000
//
// # Method
//
// Each variant runs once to warm up, then -rounds times, alternating with
// its reference, and the medians are compared: a ratio above 1× means the
// variant is faster than its reference. Both sides of a pair compute a
// checksum of the rows and their IDs, which must agree.
//
//   - shuffle: Slice → Shuffle(window) → sink, against a hand-written
//     shuffle-buffer loop over the same chunks that draws from the same
//     PCG stream and computes the same row IDs, so both give the same
//     order (the checksum is order-sensitive).
//   - mix: Mix of three Slice inputs with equal weights, against Concat of
//     the same three inputs: reading them concatenated.
//   - index shuffle: IndexShuffle over a Slice, against reading the Slice
//     in order, serially and at Parallel(2).
//   - memory: shuffling pipelines over n and 4n generated rows of 64
//     bytes, each in a child process; the table gives each peak RSS
//     (VmHWM) and their ratio. The shuffles hold a window, never the
//     dataset, so the ratio stays near 1.
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
	rounds := flag.Int("rounds", 5, "measured rounds")
	memRows := flag.Int("mem-rows", 2_000_000, "rows of the smaller memory dataset (the larger has 4x)")
	child := flag.String("child", "", "internal: run one memory measurement in this process")
	flag.Parse()
	if *child != "" {
		if err := runChild(context.Background(), *child, *memRows); err != nil {
			fmt.Fprintln(os.Stderr, "orderbench:", err)
			os.Exit(1)
		}
		return
	}
	if *rows < 10000 || *rounds < 1 || *memRows < 10000 {
		fmt.Fprintln(os.Stderr, "orderbench: -rows and -mem-rows must be at least 10000, -rounds at least 1")
		os.Exit(2)
	}
	fmt.Println(benchutil.Machine())
	fmt.Printf("load average before: %s\n\n", benchutil.LoadAvg())
	if err := run(context.Background(), *rows, *rounds, *memRows); err != nil {
		fmt.Fprintln(os.Stderr, "orderbench:", err)
		os.Exit(1)
	}
	fmt.Printf("\nload average after: %s\n", benchutil.LoadAvg())
}
