package main

import (
	"context"
	"sync/atomic"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/bench/mapfilter"
	"github.com/rowflow/rowflow/sources"
)

// The iterator variants run the headline pipeline and count its output
// in a loop over flow.Items or flow.Values instead of with sinks.Count,
// so that the table shows what consuming a pipeline in a for loop costs.
// Each loop is in a function of its own (go:noinline keeps runItems from
// being inlined into variants), as a user's loop would be: the compiler
// inlines the iterator and the loop body into that function.

func headline(p *flow.Pipeline) *flow.Pipeline {
	return p.Via(mapStage()).Parallel(2).Via(filterStage()).Parallel(2)
}

func pipelineOf(data []int64, part int) *flow.Pipeline {
	return headline(flow.From(sources.Slice(data, sources.PartitionItems(part), sources.ChunkSize(mapfilter.ChunkSize))))
}

//go:noinline
func runItems(part int) func(context.Context, []int64) (int64, error) {
	return func(ctx context.Context, data []int64) (int64, error) {
		var n, sum int64
		for it, err := range flow.Items[int64](ctx, pipelineOf(data, part)) {
			if err != nil {
				return n, err
			}
			sum += it.Value // read the value, as a loop body would
			n++
		}
		valueSum.Store(sum)
		return n, nil
	}
}

//go:noinline
func runItemIDs(part int) func(context.Context, []int64) (int64, error) {
	return func(ctx context.Context, data []int64) (int64, error) {
		var n, sum int64
		var ids uint64
		for it, err := range flow.Items[int64](ctx, pipelineOf(data, part)) {
			if err != nil {
				return n, err
			}
			sum += it.Value
			ids ^= it.ID.Lo ^ it.ID.Hi
			n++
		}
		valueSum.Store(sum + int64(ids&1))
		return n, nil
	}
}

//go:noinline
func runValues(part int) func(context.Context, []int64) (int64, error) {
	return func(ctx context.Context, data []int64) (int64, error) {
		var n, sum int64
		for v, err := range flow.Values[int64](ctx, pipelineOf(data, part)) {
			if err != nil {
				return n, err
			}
			sum += v
			n++
		}
		valueSum.Store(sum)
		return n, nil
	}
}

// valueSum keeps the sum of the values the loops read, so that reading
// them is work the compiler cannot drop.
var valueSum atomic.Int64
