package operators_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// Prefetch directly in front of the consumer, with partitions of several
// chunks: a resumed run's own checkpoints, taken in the partition it
// restarted in, resume the original run.
func TestResumeMatrixPrefetchChunkedPartitions(t *testing.T) {
	build := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(matrixInts(400), sources.PartitionItems(40), sources.ChunkSize(6))).
			Via(operators.Map(func(v int64) (int64, error) { return v * 3, nil })).Parallel(par).
			Via(operators.Prefetch[int64](2)).
			Epochs(2)
	}
	matrixResume[int64](t, build, matrixOpts{stride: 3, stops: 4, chain: 8, min: 100})
}

// Prefetch between a batcher and the consumer, the batcher's output
// partitions pushed in several chunks.
func TestResumeMatrixPrefetchAfterBatch(t *testing.T) {
	build := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(matrixInts(500), sources.PartitionItems(7))).
			Via(operators.Filter(func(v int64) bool { return v%9 != 2 })).Parallel(par).
			Via(operators.Batch[int64](2, operators.PartitionItems(25))).
			Via(operators.Prefetch[operators.Rows[int64]](3)).
			Epochs(2)
	}
	matrixResume[operators.Rows[int64]](t, build, matrixOpts{stride: 2, stops: 4, chain: 6, min: 100})
}

// Several stateful stages fed directly one by another.
func TestResumeMatrixAdjacentStateful(t *testing.T) {
	build := func(par int) *flow.Pipeline {
		return flow.From(operators.IndexShuffle(sources.Slice(matrixSeqs(400), sources.PartitionItems(23), sources.ChunkSize(5)))).
			Via(operators.Filter(func(s []int32) bool { return len(s) != 3 })).Parallel(par).
			Via(operators.Shuffle[[]int32](20, operators.PartitionItems(9))).
			Via(operators.Prefetch[[]int32](2)).
			Via(operators.BlockShuffle[[]int32](2)).
			Via(operators.Pack[int32](12, -1, operators.Window(4), operators.PartitionItems(5))).
			Via(operators.Prefetch[operators.Packed[int32]](1)).
			Via(operators.Batch[operators.Packed[int32]](3, operators.PadRemainder(), operators.PartitionItems(2))).
			Via(operators.Take[operators.Rows[operators.Packed[int32]]](150)).
			Epochs(3).WithSeed(5)
	}
	matrixResume[operators.Rows[operators.Packed[int32]]](t, build, matrixOpts{stops: 5, chain: 3, min: 100})
}

// Take over endless epochs, after a shuffle.
func TestResumeMatrixTakeForever(t *testing.T) {
	build := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(matrixInts(50), sources.PartitionItems(6))).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par).
			Via(operators.Shuffle[int64](8)).
			Via(operators.Take[int64](173)).
			Epochs(flow.Forever).WithSeed(2)
	}
	matrixResume[int64](t, build, matrixOpts{stops: 5, chain: 2, min: 173})
}

// EvenRanks with every policy, every rank, then Batch with padding.
func TestResumeMatrixEvenRanks(t *testing.T) {
	for _, pol := range []uneven{dropUneven, padUneven, allowUneven} {
		for _, total := range []int{2, 103} {
			for rank := range 4 {
				t.Run(fmt.Sprintf("%v/n%d/rank%d", pol, total, rank), func(t *testing.T) {
					build := func(par int) *flow.Pipeline {
						src := operators.EvenRanks(sources.Slice(matrixInts(total), sources.PartitionItems(9), sources.ChunkSize(4)), nil, evenOptions(pol)...)
						return flow.From(src).
							Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par).
							Via(operators.Batch[int64](4, operators.PadRemainder(), operators.PartitionItems(2))).
							Via(operators.Prefetch[operators.Rows[int64]](1)).
							WithRank(rank, 4).Epochs(2).WithSeed(1)
					}
					matrixResume[operators.Rows[int64]](t, build, matrixOpts{stops: 3, chain: 2})
				})
			}
		}
	}
}

// A disk cache whose first pass was interrupted: the checkpoint of the
// interrupted pass resumes (building the cache), and the built cache then
// replays the same stream, from the start and from every checkpoint.
func TestResumeMatrixDiskCacheInterrupted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c")
	inner := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(matrixSeqs(300), sources.PartitionItems(31), sources.ChunkSize(7))).
			Via(operators.Filter(func(s []int32) bool { return len(s) != 5 })).Parallel(par)
	}
	build := func(par int) *flow.Pipeline {
		return flow.From(operators.Cache[[]int32](inner(par), operators.OnDisk(path))).
			Via(operators.Map(func(s []int32) ([]int32, error) { return s, nil })).Parallel(par).
			Via(operators.BucketByLength(func(s []int32) int { return len(s) }, operators.TokenBudget(24), operators.PartitionItems(3))).
			Epochs(2).WithSeed(4)
	}
	rm := func() {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	// Every run starts without the file: all first passes, some interrupted.
	want := matrixResume[operators.Rows[[]int32]](t, build, matrixOpts{stride: 2, stops: 4, chain: 2, before: rm, min: 50})
	// With the file built: every run replays.
	rm()
	if _, err := matrixCollect[operators.Rows[[]int32]](build(2)); err != nil {
		t.Fatal(err)
	}
	got := matrixResume[operators.Rows[[]int32]](t, build, matrixOpts{stride: 2, stops: 4, chain: 2, min: 50})
	if !itemsEqual(got, want) {
		t.Fatalf("the replayed stream differs from the first pass: %s", firstDiff(got, want))
	}
	// Interrupted first pass, resumed, then replayed.
	names, _ := os.ReadDir(dir)
	for _, n := range names {
		if n.Name() != "c" {
			t.Errorf("left behind: %s", n.Name())
		}
	}
}

// A memory cache shared by every run (built by the first), with a shuffle
// and epochs after it.
func TestResumeMatrixMemoryCacheShared(t *testing.T) {
	inner := flow.From(sources.Slice(matrixInts(700), sources.PartitionItems(33), sources.ChunkSize(8))).
		Via(operators.Filter(func(v int64) bool { return v%6 != 1 })).Parallel(3)
	c := operators.Cache[int64](inner)
	build := func(par int) *flow.Pipeline {
		return flow.From(c).
			Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(par).
			Via(operators.Shuffle[int64](30, operators.PartitionItems(40))).
			Via(operators.ReduceEvery(3, func(a, v int64) (int64, error) { return a*7 + v, nil }, operators.PartitionItems(5))).
			Epochs(3).WithSeed(8)
	}
	matrixResume[int64](t, build, matrixOpts{stride: 3, stops: 4, chain: 2, min: 300})
}

// A cursor set resumes from a checkpoint one consumer took, each item
// once, and refuses a position made by At, which is found in the serial
// stream. (flow/cursor_resume_test.go checkpoints and resumes the sets
// themselves.)
func TestResumeMatrixCursorSetPositions(t *testing.T) {
	p := flow.From(sources.Slice(matrixInts(50), sources.PartitionItems(7))).Via(operators.Batch[int64](3))
	var ref []flow.Item[operators.Rows[int64]]
	for it, err := range flow.Items[operators.Rows[int64]](t.Context(), p) {
		if err != nil {
			t.Fatal(err)
		}
		ref = append(ref, it)
	}
	tr := new(flow.Tracker)
	k := 0
	for _, err := range flow.Items[operators.Rows[int64]](t.Context(), p.Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		if k++; k == 5 {
			break
		}
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3} {
		s, err := flow.Cursors[operators.Rows[int64]](t.Context(), p.Resume(ck), n)
		if err != nil {
			t.Fatal(err)
		}
		var got []flow.Item[operators.Rows[int64]]
		for it, err := range s.Consolidate() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, it)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(ref)-k || len(got) > 0 && !slices.Equal(got[0].Value.Values, ref[k].Value.Values) {
			t.Errorf("%d cursors resumed after %d batches: %d batches, want the last %d of %d", n, k, len(got), len(ref)-k, len(ref))
		}
	}
	if _, err := flow.Cursors[operators.Rows[int64]](t.Context(), p.Resume(flow.At(0, 2)), 2); err == nil {
		t.Error("a cursor set started at a position made by At")
	}
}

// Two BlockShuffles in a row, the first fed partitions of one row, so
// that some of its output partitions are empty: the second counts its
// input partitions by their ends, and a checkpoint whose first stage was
// taken after the end of an empty partition the second still needed
// resumed it a partition off.
func TestResumeMatrixEmptyPartitionsBetweenStatefulStages(t *testing.T) {
	build := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(matrixInts(60), sources.PartitionItems(1))).
			Via(operators.Filter(func(v int64) bool { return v%5 != 3 })).Parallel(par).
			Via(operators.BlockShuffle[int64](2)).
			Via(operators.BlockShuffle[int64](3)).
			Epochs(2).WithSeed(4)
	}
	matrixResume[int64](t, build, matrixOpts{stops: 4, chain: 2, min: 90})
}
