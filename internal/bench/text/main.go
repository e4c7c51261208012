// Command textbench measures rowflow's CSV and JSON Lines sources against
// hand-written loops in one process: bufio + encoding/csv, and bufio +
// encoding/json, decoding the same struct.
//
// The data: -rows rows of [Row] (an int64, an int32, a float64, a bool
// and a 40-byte string), written once as one uncompressed CSV file and one
// JSON Lines file. The comparisons, for each format:
//
//  1. the source on one worker against the hand loop (aim: 0.9×);
//  2. the source on two workers against the hand loop (aim: 1.6×).
//
// # Running
//
// From the module root:
//
//	go run ./internal/bench/text
//	go run ./internal/bench/text -rows 2000000 -rounds 7
//
// # Method
//
// Every variant runs once to warm up (and to bring the files into the page
// cache). Then, in each of -rounds rounds, every variant runs once,
// starting from a different variant each round, so that noise from other
// processes falls on all variants alike. A garbage collection precedes
// each run. The table shows each variant's median and the load average
// before and after.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
)

func main() {
	rows := flag.Int("rows", 1_000_000, "rows per file")
	rounds := flag.Int("rounds", 5, "measured rounds")
	flag.Parse()
	if err := run(*rows, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "textbench:", err)
		os.Exit(1)
	}
}

func run(rows, rounds int) error {
	dir, err := os.MkdirTemp("", "textbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	csvPath, jsonPath := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "rows.jsonl")
	if err := writeData(csvPath, jsonPath, rows); err != nil {
		return err
	}
	vs := variants(csvPath, jsonPath)
	before := benchutil.LoadAvg()
	times, err := measureAll(context.Background(), vs, rounds, int64(rows))
	if err != nil {
		return err
	}
	fmt.Printf("%s; %d rows; load average %s before, %s after; medians of %d rounds\n\n",
		benchutil.Machine(), rows, before, benchutil.LoadAvg(), rounds)
	fmt.Println("| variant | rows/s | vs | ratio | aim | met? |")
	fmt.Println("|---|--:|---|--:|--:|---|")
	for i, v := range vs {
		line := fmt.Sprintf("| %s | %.2fM | ", v.name, float64(rows)/times[i].Seconds()/1e6)
		if v.vs == "" {
			fmt.Println(line + " |  |  |  |")
			continue
		}
		ref := slices.IndexFunc(vs, func(w variant) bool { return w.name == v.vs })
		ratio := times[ref].Seconds() / times[i].Seconds()
		met := "yes"
		if ratio < v.aim {
			met = "**no**"
		}
		fmt.Printf("%s%s | %.2f× | ≥ %.1f× | %s |\n", line, v.vs, ratio, v.aim, met)
	}
	return nil
}

// measureAll runs every variant once to warm up, then rounds times in a
// rotating order, and returns each one's median time.
func measureAll(ctx context.Context, vs []variant, rounds int, want int64) ([]time.Duration, error) {
	samples := make([][]time.Duration, len(vs))
	for r := -1; r < rounds; r++ {
		for k := range vs {
			i := (k + max(r, 0)) % len(vs)
			d, err := measure(ctx, vs[i], want)
			if err != nil {
				return nil, err
			}
			if r >= 0 {
				samples[i] = append(samples[i], d)
			}
		}
	}
	out := make([]time.Duration, len(vs))
	for i, s := range samples {
		slices.Sort(s)
		out[i] = s[len(s)/2]
	}
	return out, nil
}

func measure(ctx context.Context, v variant, want int64) (time.Duration, error) {
	runtimeGC()
	start := time.Now()
	n, err := v.run(ctx)
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", v.name, err)
	}
	if n != want {
		return 0, fmt.Errorf("%s: read %d rows, want %d", v.name, n, want)
	}
	return d, nil
}
