package sinks_test

import (
	"context"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// TestForEachStopResumesAfterItsItem stops a run from ForEach at values
// at the start, inside and at the end of chunks and partitions: the
// checkpoint taken after the run resumes right after the value ForEach
// stopped at, as after a loop over flow.Items that breaks there.
func TestForEachStopResumesAfterItsItem(t *testing.T) {
	ctx := context.Background()
	all := make([]int64, 100)
	for i := range all {
		all[i] = int64(i)
	}
	// The sink is part of the pipeline's definition: the resumed run ends
	// in a ForEach too.
	build := func(par int, f func(flow.Item[int64]) error) *flow.Pipeline {
		return flow.From(sources.Slice(all, sources.PartitionItems(30), sources.ChunkSize(10))).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par).
			To(sinks.ForEach(f))
	}
	for _, stop := range []int64{0, 5, 9, 10, 29, 30, 35, 99} {
		tr := new(flow.Tracker)
		var handled []int64
		err := build(2, func(it flow.Item[int64]) error {
			handled = append(handled, it.Value)
			if it.Value == stop {
				return flow.ErrStop
			}
			return nil
		}).Checkpoints(tr).Run(ctx)
		if err != nil || !slices.Equal(handled, all[:stop+1]) {
			t.Fatalf("stop at %d: handled %v, %v", stop, handled, err)
		}
		ck, err := tr.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		var rest []int64
		if err := build(4, func(it flow.Item[int64]) error {
			rest = append(rest, it.Value)
			return nil
		}).Resume(ck).Run(ctx); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rest, all[stop+1:]) {
			t.Errorf("stop at %d: the resumed run gives %v, want %v (checkpoint %+v)", stop, rest, all[stop+1:], ck)
		}
	}
}
