package determinism_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// TestSumOfIgnoresPartitions: the digest is the row IDs and values in
// order, so the partition size and the parallelism change nothing; an
// empty stream has the empty sum, and a stream that Take ends early has
// the sum of what was taken.
func TestSumOfIgnoresPartitions(t *testing.T) {
	ctx := context.Background()
	vals := make([]string, 5000)
	want := determinism.NewHasher[string]()
	for i := range vals {
		vals[i] = strings.Repeat("w", i%11)
		want.Add(rowid.Ordinal(uint64(i)).Combine(rowid.FromString("slice")), vals[i])
	}
	for _, size := range []int{1, 100, 5000} {
		for _, n := range []int{1, 3} {
			p := flow.From(sources.Slice(vals, sources.PartitionItems(size), sources.ChunkSize(64))).
				Via(operators.Map(func(s string) (string, error) { return s, nil })).Parallel(n)
			got, err := determinism.SumOf[string](ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if got != want.Sum() {
				t.Errorf("partition size %d, parallelism %d: digest %v (%d items), want %v (%d items)",
					size, n, got, got.Count, want.Sum(), want.Sum().Count)
			}
		}
	}
	if empty, err := determinism.SumOf[string](ctx, flow.From(sources.Slice([]string{}))); err != nil ||
		empty != determinism.NewHasher[string]().Sum() {
		t.Errorf("empty stream: digest %v, %v", empty, err)
	}
	taken, err := determinism.SumOf[int64](ctx, flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil })).
		Via(operators.Take[int64](10)))
	ten := determinism.NewHasher[int64]()
	for i := range int64(10) {
		ten.Add(rowid.Ordinal(uint64(i)).Combine(rowid.FromString("generate")), i)
	}
	if err != nil || taken != ten.Sum() {
		t.Errorf("after Take(10): %v (%d items), %v; want %v", taken, taken.Count, err, ten.Sum())
	}
}
