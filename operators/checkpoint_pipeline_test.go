package operators_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// everyStateful is a pipeline that goes through every stateful operator
// (an index shuffle at the source, Shuffle, BlockShuffle, Prefetch,
// BucketByLength, Pack, Batch, ReduceEvery, ReduceRuns, TableBucket,
// BucketPool), with stateless stages between them on par workers, over
// two epochs. Its items are int64 digests of what reached the end.
func everyStateful(par int) *flow.Pipeline {
	seqs := make([][]int32, 1500)
	for i := range seqs {
		for j := range 1 + (i*7)%11 {
			seqs[i] = append(seqs[i], int32(i*100+j))
		}
	}
	src := operators.IndexShuffle(sources.Slice(seqs, sources.PartitionItems(41)))
	sum := func(acc int64, v int64) (int64, error) { return acc*31 + v, nil }
	members := func(r operators.Rows[int64]) ([]int64, error) { return r.Values[:len(r.Values)-r.Padding], nil }
	return flow.From(src).
		Via(operators.Filter(func(s []int32) bool { return s[0]%9 != 4 })).Parallel(par).
		Via(operators.Shuffle[[]int32](60)).
		Via(operators.BlockShuffle[[]int32](3)).
		Via(operators.Prefetch[[]int32](2)).
		Via(operators.BucketByLength(func(s []int32) int { return len(s) }, operators.TokenBudget(40))).
		Via(operators.FlatMap(func(r operators.Rows[[]int32]) ([][]int32, error) { return r.Values, nil })).Parallel(par).
		Via(operators.Pack[int32](16, -1)).
		Via(operators.Map(func(p operators.Packed[int32]) (int64, error) {
			var s int64
			for _, t := range p.Tokens {
				s = s*7 + int64(t)
			}
			return s, nil
		})).Parallel(par).
		Via(operators.Batch[int64](5)).
		Via(operators.FlatMap(members)).Parallel(par).
		Via(operators.TableBucket[int64](4)).
		Via(operators.FlatMap(members)).Parallel(par).
		Via(operators.BucketPool(3, 4, func(v int64) int { return int(v&7) + 1 })).
		Via(operators.FlatMap(members)).Parallel(par).
		Via(operators.ReduceEvery(2, sum)).
		Via(operators.ReduceRuns(func(v int64) int64 { return v & 1 }, sum)).
		Via(operators.Map(func(v int64) (int64, error) { return v ^ 0x5555, nil })).Parallel(par).
		Epochs(2).WithSeed(11)
}

// A checkpoint taken after any item of a pipeline that uses every
// stateful operator resumes, at parallelism 1 and 4, to exactly the rest
// of the uninterrupted run.
func TestCheckpointThroughEveryStatefulOperator(t *testing.T) {
	ctx := context.Background()
	tr := new(flow.Tracker)
	var want []flow.Item[int64]
	var cks [][]byte
	for it, err := range flow.Items[int64](ctx, everyStateful(1).Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, it)
		ck, err := tr.Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(ck)
		if err != nil {
			t.Fatal(err)
		}
		cks = append(cks, b)
	}
	t.Logf("%d items; the checkpoint before the last: %s", len(want), cks[len(cks)-2])
	if len(want) < 100 {
		t.Fatalf("only %d items", len(want))
	}
	var par3 []flow.Item[int64]
	for it, err := range flow.Items[int64](ctx, everyStateful(3)) {
		if err != nil {
			t.Fatal(err)
		}
		par3 = append(par3, it)
	}
	if !slices.Equal(par3, want) {
		t.Fatal("parallelism 3 differs from 1")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	positions := []int{0, len(want) / 2, len(want) - 1}
	for range 20 {
		positions = append(positions, rng.IntN(len(want)))
	}
	for _, k := range positions {
		var ck flow.Checkpoint
		if err := json.Unmarshal(cks[k], &ck); err != nil {
			t.Fatal(err)
		}
		for _, par := range []int{1, 4} {
			var got []flow.Item[int64]
			for it, err := range flow.Items[int64](ctx, everyStateful(par).Resume(ck)) {
				if err != nil {
					t.Fatalf("resume after item %d at parallelism %d: %v", k, par, err)
				}
				got = append(got, it)
			}
			if !slices.Equal(got, want[k+1:]) {
				t.Fatalf("resume after item %d of %d at parallelism %d: %d items, want %d\ncheckpoint %s", k, len(want), par, len(got), len(want)-k-1, cks[k])
			}
		}
	}
}
