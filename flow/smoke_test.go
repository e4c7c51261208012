package flow_test

import (
	"context"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

func TestSmoke(t *testing.T) {
	vals := make([]int64, 100000)
	for i := range vals {
		vals[i] = int64(i)
	}
	build := func(n int) *flow.Pipeline {
		return flow.From(sources.Slice(vals, sources.PartitionSize(1000), sources.ChunkSize(128))).
			Via(operators.Filter(func(v int64) bool { return v%3 != 0 })).Parallel(n).
			Via(operators.FlatMap(func(v int64) ([]int64, error) { return make([]int64, v%4), nil })).Parallel(n).
			Via(operators.Map(func(v int64) (int64, error) { return v * 2, nil })).Parallel(n + 1)
	}
	var ref []flow.Item[int64]
	for it, err := range flow.Items[int64](context.Background(), build(1)) {
		if err != nil {
			t.Fatal(err)
		}
		ref = append(ref, it)
	}
	for _, n := range []int{2, 3, 4, 8} {
		i := 0
		for it, err := range flow.Items[int64](context.Background(), build(n)) {
			if err != nil {
				t.Fatal(err)
			}
			if it != ref[i] {
				t.Fatalf("n=%d: item %d = %+v, want %+v", n, i, it, ref[i])
			}
			i++
		}
		if i != len(ref) {
			t.Fatalf("n=%d: %d items, want %d", n, i, len(ref))
		}
	}
	t.Log(len(ref))
}
