package operators_test

import (
	"context"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// A run resumed in the middle of a partition that reaches the consumer
// through Prefetch must itself give checkpoints that resume: after
// resuming past item 2 and delivering item 3, the checkpoint must resume
// at item 4. Prefetch's processor ignores its resume state, so it counts
// the partition's rows from where its resumed input starts, and reports
// an input mark too early: the next resume delivers items 2 and 3 again.
func TestResumeMatrixPrefetchResumedTwiceInOnePartition(t *testing.T) {
	ctx := context.Background()
	p := flow.From(sources.Slice(matrixInts(20), sources.PartitionItems(10), sources.ChunkSize(2))).
		Via(operators.Prefetch[int64](1))
	values := func(p *flow.Pipeline) []int64 {
		var got []int64
		for v, err := range flow.Values[int64](ctx, p) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		return got
	}
	ck1 := matrixStopAfter[int64](t, p, 2) // after values 0, 1, 2
	if got := values(p.Resume(ck1)); !slices.Equal(got, matrixInts(20)[3:]) {
		t.Fatalf("first resume gives %v", got)
	}
	ck2 := matrixStopAfter[int64](t, p.Resume(ck1), 0) // after value 3
	if got := values(p.Resume(ck2)); !slices.Equal(got, matrixInts(20)[4:]) {
		t.Fatalf("resumed after value 3 (checkpoint %+v): got %v, want %v", ck2, got, matrixInts(20)[4:])
	}
}
