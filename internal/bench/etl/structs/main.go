// Command decode reads a Parquet file of the ETL benchmark's Parquet input
// (internal/bench/etl) into Go structs with rowflow's Parquet source and
// prints aggregates of every column, as the benchmark's DuckDB query does,
// so that both decode every value: the rowflow side of the benchmark's
// "Parquet into structs" job.
//
//	decode -parallel 2 in.parquet
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources/parquet"
)

// row is a row of the benchmark's Parquet input.
type row struct {
	ID     int64    `parquet:"id"`
	Name   string   `parquet:"name"`
	Score  float64  `parquet:"score"`
	Tags   []string `parquet:"tags"`
	Tokens []int32  `parquet:"tokens"`
}

func main() {
	parallel := flag.Int("parallel", 1, "the source's workers")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: decode [-parallel N] FILE")
		os.Exit(2)
	}
	var maxID, maxName, tags, tokens int64
	var score float64
	count := func(it flow.Item[row]) error {
		r := &it.Value
		maxID, maxName = max(maxID, r.ID), max(maxName, int64(len(r.Name)))
		score += r.Score
		tags += int64(len(r.Tags))
		for _, t := range r.Tokens {
			tokens += int64(t)
		}
		return nil
	}
	err := flow.From(parquet.Read[row](flag.Arg(0))).Parallel(*parallel).To(sinks.ForEach(count)).Run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "decode:", err)
		os.Exit(1)
	}
	fmt.Println(maxID, maxName, score, tags, tokens)
}
