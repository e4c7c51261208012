package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/bench/benchutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

const childPrefix = "orderbench-child:"

// row is a 64-byte value.
type row [8]int64

func rows(n int, name string) *flow.Pipeline {
	return flow.From(sources.Generate(int64(n), func(i int64) (row, error) { return row{i, i * 3}, nil }, sources.Named(name)))
}

// memModes are the pipelines measured for memory, each over n rows.
var memModes = []struct {
	mode, desc string
	build      func(n int) *flow.Pipeline
}{
	{"shuffle", "Generate → Shuffle(100000) → Map.Parallel(2)", func(n int) *flow.Pipeline {
		return rows(n, "g").Via(operators.Shuffle[row](100_000)).
			Via(operators.Map(func(r row) (row, error) { return r, nil })).Parallel(2)
	}},
	{"block", "Generate.Parallel(2) → BlockShuffle(8) (partitions of 16384)", func(n int) *flow.Pipeline {
		return rows(n, "g").Parallel(2).Via(operators.BlockShuffle[row](8))
	}},
	{"mix", "Mix of three Generate inputs → Shuffle(10000)", func(n int) *flow.Pipeline {
		ins := []*flow.Pipeline{rows(n/3, "a").Parallel(2), rows(n/3, "b"), rows(n-2*(n/3), "c")}
		return flow.From(operators.Mix[row](ins, []float64{1, 2, 3})).Via(operators.Shuffle[row](10_000))
	}},
	{"index", "IndexShuffle(Generate).Parallel(2)", func(n int) *flow.Pipeline {
		return flow.From(operators.IndexShuffle(sources.Generate(int64(n), func(i int64) (row, error) { return row{i}, nil }))).Parallel(2)
	}},
}

// runChild runs one memory measurement and prints rows and peak RSS.
func runChild(ctx context.Context, mode string, n int) error {
	for _, m := range memModes {
		if m.mode != mode {
			continue
		}
		var count int64
		if err := m.build(n).To(sinks.Count[row](&count)).Run(ctx); err != nil {
			return err
		}
		if count != int64(n) {
			return fmt.Errorf("%s: %d rows of %d", mode, count, n)
		}
		hwm, err := benchutil.PeakRSS()
		if err != nil {
			return err
		}
		fmt.Println(childPrefix, count, hwm)
		return nil
	}
	return fmt.Errorf("unknown child mode %q", mode)
}

// peak runs mode over n rows in a child and returns its peak RSS in KiB.
func peak(mode string, n int) (int64, error) {
	f, err := benchutil.Child(childPrefix, "-child", mode, "-mem-rows", strconv.Itoa(n))
	if err != nil {
		return 0, err
	}
	if len(f) != 2 {
		return 0, fmt.Errorf("child %s printed %q", mode, f)
	}
	return strconv.ParseInt(f[1], 10, 64)
}
