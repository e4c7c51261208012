package determinism_test

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// MeasureMixing compares a shuffled stream with its input: a shuffle
// buffer of 50 rows moves rows by about 0.74·50 rows, and mixes rows of
// neighbouring partitions into every window.
func ExampleMeasureMixing() {
	ctx := context.Background()
	collect := func(p *flow.Pipeline) []flow.Item[int] {
		var items []flow.Item[int]
		for it, err := range flow.Items[int](ctx, p) {
			if err != nil {
				panic(err)
			}
			items = append(items, it)
		}
		return items
	}
	values := make([]int, 10000)
	src := func() *flow.Pipeline { return flow.From(sources.Slice(values, sources.PartitionItems(100))) }
	in := collect(src())
	out := collect(src().Via(operators.Shuffle[int](50)).WithSeed(1))
	m, err := determinism.MeasureMixing(in, in, 8)
	fmt.Printf("input order: mean %.3f, single-partition windows %.2f, %v\n", m.Mean, m.SinglePartition, err)
	// The shuffle numbers its own partitions: give each row the input
	// partition it came from.
	partition := map[rowid.ID]int64{}
	for _, it := range in {
		partition[it.ID] = it.Part
	}
	for i := range out {
		out[i].Part = partition[out[i].ID]
	}
	m, err = determinism.MeasureMixing(in, out, 8)
	fmt.Printf("Shuffle(50): mean rows %.0f, single-partition windows %.2f, %v\n", m.MeanRows, m.SinglePartition, err)
	// Output:
	// input order: mean 0.000, single-partition windows 0.93, <nil>
	// Shuffle(50): mean rows 36, single-partition windows 0.10, <nil>
}
