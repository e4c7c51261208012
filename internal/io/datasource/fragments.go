package datasource

import (
	"context"
	"iter"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
)

// FragmentPartitions yields one partition per fragment of epoch e of a
// dataset source's plan, numbered by the fragment's index and read by
// read. It is the Partitions of every source that plans with
// internal/io/dataset (Parquet, CSV, JSON Lines).
func FragmentPartitions[T any](ctx context.Context, plan *dataset.Plan, e int64,
	read func(context.Context, dataset.Fragment, flow.Emitter[T]) error) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		for fr, err := range plan.Epoch(ctx, e) {
			if err != nil {
				yield(flow.Partition[T]{}, err)
				return
			}
			p := flow.Partition[T]{Part: fr.Index, Read: func(ctx context.Context, out flow.Emitter[T]) error {
				return read(ctx, fr, out)
			}}
			if !yield(p, nil) {
				return
			}
		}
	}
}
