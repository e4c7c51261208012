// Command bench measures a Map → Filter → count pipeline in rowflow and
// compares it, in one process, with reference implementations of the
// same work.
//
// The work: over the int64 values 0 … n-1, map v → 3v, keep the even
// results, count them (the count is (n+1)/2, checked on every run). The
// variants are rowflow in several shapes, (a) the same pipeline in
// go-streams v0.13.0, (b) a hand-written channel pipeline passing
// 1024-value chunks between goroutines, and (c) a plain loop.
//
// # Running
//
// From the module root:
//
//	go run ./internal/bench/pipeline
//	go run ./internal/bench/pipeline -n 1000000 -rounds 9 -streams-n 100000 -p 16384
//	go run ./internal/bench/pipeline -rounds 41 -only rowflow,rowflow-monitored
//
// It prints a Markdown table. The same variants run as Go benchmarks:
//
//	go test -run '^$' -bench MapFilterCount ./internal/bench/pipeline
//
// # Method
//
// Every variant runs once to warm up. Then, in each of -rounds rounds,
// every variant runs once, starting from a different variant each round,
// so that noise from other processes falls on all variants alike. A
// garbage collection precedes each run. The table shows each variant's
// median, and the header the load average before and after: other
// processes on the machine slow all variants, the parallel ones most. go-streams is about two orders of magnitude slower than the
// others (7 to 8 s for 10 million values on two cores); -streams-n runs
// it on fewer values, and the table then compares it per value.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
)

func main() {
	n := flag.Int("n", 10_000_000, "number of values")
	rounds := flag.Int("rounds", 5, "measured rounds; each runs every variant once")
	streamsN := flag.Int("streams-n", 0, "number of values for go-streams, at most -n; 0 means -n")
	part := flag.Int("p", defaultPartition, "partition size of rowflow's source")
	only := flag.String("only", "", "comma-separated variants to run (default all)")
	flag.Parse()
	if *n < 1 || *rounds < 1 || *streamsN < 0 || *part < 1 {
		fmt.Fprintln(os.Stderr, "bench: -n, -rounds and -p must be at least 1, -streams-n at least 0")
		os.Exit(2)
	}
	if *streamsN == 0 || *streamsN > *n {
		*streamsN = *n
	}
	cfg := config{n: *n, streamsN: *streamsN, rounds: *rounds, part: *part}
	if *only != "" {
		cfg.only = strings.Split(*only, ",")
	}
	load := benchutil.LoadAvg()
	res, err := measureAll(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	report(os.Stdout, cfg, res, load, benchutil.LoadAvg())
}

// config is what one invocation measures.
type config struct {
	n, streamsN int // values for most variants, for the small ones
	rounds      int
	part        int      // rowflow partition size
	only        []string // variants to run; all if empty
}
