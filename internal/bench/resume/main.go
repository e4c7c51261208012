// Command resumebench measures what resuming a pipeline costs against
// reading its epoch from the start, and prints a table of ratios.
//
// # Running
//
// From the module root:
//
//	go run ./internal/bench/resume
//	go run ./internal/bench/resume -rows 4000000 -rounds 5
//
// # Method
//
// The input is a Parquet dataset of -rows rows written into a temporary
// directory by shards.Parquet, in row groups of 20,000 rows. The
// pipeline reads it with sources/parquet.Read on two workers, maps each row,
// shuffles it with a window of 10,000 rows and batches it by 32, over
// two epochs. A first run, followed by a flow.Tracker, takes a checkpoint
// 90% of the way into the second epoch.
//
//   - reference: a run from the start of the second epoch (Epochs skipped
//     by a resume at its first item) until it reaches the checkpoint's
//     position: what a loader that fast-forwards by re-reading pays.
//   - resume: from Pipeline.Resume(checkpoint) to the first item.
//
// Each is timed -rounds times, alternating, and the medians are compared.
// Both must agree: the resumed run's first item is the uninterrupted
// run's next one.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
)

func main() {
	rows := flag.Int("rows", 2_000_000, "rows of the dataset")
	rounds := flag.Int("rounds", 5, "measured rounds")
	flag.Parse()
	if *rows < 100_000 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "resumebench: -rows must be at least 100000, -rounds at least 1")
		os.Exit(2)
	}
	fmt.Println(benchutil.Machine())
	fmt.Printf("load average before: %s\n\n", benchutil.LoadAvg())
	r, err := measure(context.Background(), *rows, *rounds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "resumebench:", err)
		os.Exit(1)
	}
	fmt.Printf("%-44s %12s\n", "measurement", "median")
	fmt.Printf("%-44s %12v\n", "read the epoch from its start to 90%", r.Reference)
	fmt.Printf("%-44s %12v\n", "Resume at 90% to the first item", r.Resume)
	fmt.Printf("%-44s %11.2f%%\n", "resume / re-read (aim <= 5%)", 100*r.Ratio())
	fmt.Printf("\ncheckpoint: %d bytes of JSON; the resumed run's source starts at row group %d of %d\n",
		r.JSONBytes, r.RestartGroup, r.Groups)
	fmt.Printf("\nload average after: %s\n", benchutil.LoadAvg())
}
