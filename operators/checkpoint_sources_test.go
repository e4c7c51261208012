package operators_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// Checkpoints of pipelines that read a cache (in memory and on disk) or
// an even share of a rank resume exactly at parallelism 1 and 4.
func TestCheckpointThroughCacheAndEvenRanks(t *testing.T) {
	xs := make([]int64, 2000)
	for i := range xs {
		xs[i] = int64(i)
	}
	inner := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(xs, sources.PartitionItems(70))).
			Via(operators.Filter(func(v int64) bool { return v%13 != 2 })).Parallel(par)
	}
	disk := filepath.Join(t.TempDir(), "cache")
	cases := map[string]func(par int) *flow.Pipeline{
		"memory cache": func(par int) *flow.Pipeline {
			return flow.From(operators.Cache[int64](inner(par))).Via(operators.Shuffle[int64](50)).Epochs(3).WithSeed(1)
		},
		"disk cache": func(par int) *flow.Pipeline {
			return flow.From(operators.Cache[int64](inner(par), operators.OnDisk(disk))).Via(operators.Shuffle[int64](50)).Epochs(3).WithSeed(1)
		},
		"even ranks": func(par int) *flow.Pipeline {
			return flow.From(operators.EvenRanks[int64](sources.Slice(xs, sources.PartitionItems(70)), nil)).
				Via(operators.Map(func(v int64) (int64, error) { return v * 2, nil })).Parallel(par).
				Via(operators.Batch[int64](3)).
				Via(operators.Map(func(r operators.Rows[int64]) (int64, error) { return r.Values[0], nil })).
				WithRank(1, 3).Epochs(2)
		},
	}
	ctx := context.Background()
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			tr := new(flow.Tracker)
			var want []flow.Item[int64]
			var cks []flow.Checkpoint
			for it, err := range flow.Items[int64](ctx, build(1).Checkpoints(tr)) {
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, it)
				ck, err := tr.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				cks = append(cks, ck)
			}
			if len(want) < 300 {
				t.Fatalf("only %d items", len(want))
			}
			rng := rand.New(rand.NewPCG(7, 8))
			for range 12 {
				k := rng.IntN(len(want))
				for _, par := range []int{1, 4} {
					var got []flow.Item[int64]
					for it, err := range flow.Items[int64](ctx, build(par).Resume(cks[k])) {
						if err != nil {
							t.Fatalf("resume after item %d at parallelism %d: %v", k, par, err)
						}
						got = append(got, it)
					}
					if !slices.Equal(got, want[k+1:]) {
						t.Fatalf("resume after item %d of %d at parallelism %d: %d items, want %d", k, len(want), par, len(got), len(want)-k-1)
					}
				}
			}
		})
	}
}
