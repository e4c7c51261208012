package operators_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
)

// The shuffles are checked on a pipeline with parallel stages before and
// after them: a filter that empties some partitions, the shuffle, and a
// map. Rows 0..shufRows-1 in partitions of shufPart.

const (
	shufRows = 12000
	shufPart = 250
)

func shuffled(n int, seed uint64, epochs int64, stage flow.Stage) *flow.Pipeline {
	return flow.From(source(shufRows, shufPart, 64)).Parallel(n).
		Via(operators.Filter(keep)).Parallel(n).
		Via(stage).
		Via(operators.Map(func(v int64) (int64, error) { return v * 3, nil })).Parallel(n).
		Epochs(epochs).WithSeed(seed)
}

// unshuffled is shuffled without the shuffle: the input order.
func unshuffled(epochs int64) []flow.Item[int64] {
	var out []flow.Item[int64]
	for e := range epochs {
		for i := int64(0); i < shufRows; i++ {
			if keep(i) {
				out = append(out, flow.Item[int64]{Part: epoch.Part(e, i/shufPart), ID: sourceID(i), Value: 3 * i})
			}
		}
	}
	return out
}

// checkShuffle checks what every shuffle must give: the same items at
// every parallelism and in every run, each epoch a permutation of the
// input with every ID once, epochs and seeds that differ, partition numbers
// that increase and carry the epoch. It returns epoch 0's mixing.
func checkShuffle(t *testing.T, stage func() flow.Stage, window int) determinism.Mixing {
	t.Helper()
	ref := collect[int64](t, shuffled(1, 7, 2, stage()))
	for _, n := range []int{2, 4, 8} {
		equalItems(t, "parallel", collect[int64](t, shuffled(n, 7, 2, stage())), ref)
	}
	verify[int64](t, func(n int) *flow.Pipeline { return shuffled(n, 7, 2, stage()) })
	in := unshuffled(1)
	per := len(in)
	if len(ref) != 2*per {
		t.Fatalf("%d items over two epochs, want %d", len(ref), 2*per)
	}
	var mix determinism.Mixing
	for e := range 2 {
		epoch := ref[e*per : (e+1)*per]
		for i, it := range epoch {
			if it.Epoch() != int64(e) || i > 0 && it.Part < epoch[i-1].Part {
				t.Fatalf("epoch %d, item %d: partition %d after %d", e, i, it.Part, epoch[max(i-1, 0)].Part)
			}
		}
		// Partition numbers are the shuffle's own; compare rows by ID.
		m, err := determinism.MeasureMixing(in, relabel(epoch, in), window)
		if err != nil {
			t.Fatalf("epoch %d: %v", e, err)
		}
		if e == 0 {
			mix = m
		}
	}
	if sameOrder(ref[:per], ref[per:]) {
		t.Fatal("epochs 0 and 1 have the same order")
	}
	if other := collect[int64](t, shuffled(2, 8, 1, stage())); sameOrder(other, ref[:per]) {
		t.Fatal("seeds 7 and 8 give the same order")
	}
	return mix
}

// relabel gives the items of out the partition numbers their rows had in in,
// so that MeasureMixing sees input partitions.
func relabel(out, in []flow.Item[int64]) []flow.Item[int64] {
	batch := make(map[rowid.ID]int64, len(in))
	for _, it := range in {
		batch[it.ID] = it.Part
	}
	r := slices.Clone(out)
	for i := range r {
		r[i].Part = batch[r[i].ID]
	}
	return r
}

func sameOrder(a, b []flow.Item[int64]) bool {
	return slices.EqualFunc(a, b, func(x, y flow.Item[int64]) bool { return x.ID == y.ID })
}

func TestShuffle(t *testing.T) {
	m := checkShuffle(t, func() flow.Stage { return operators.Shuffle[int64](500) }, 16)
	t.Logf("window 500: %v", m)
	// A row leaves the buffer after a geometric wait of mean 500 draws:
	// it moves by 500·E|X-1| ≈ 0.74·500 rows on average, X exponential.
	if m.MeanRows < 300 || m.MeanRows > 450 || m.SinglePartition > 0.01 {
		t.Fatalf("window 500: %v", m)
	}
	small := checkShuffle(t, func() flow.Stage { return operators.Shuffle[int64](20) }, 16)
	if small.MeanRows < 10 || small.MeanRows > 18 {
		t.Fatalf("window 20: %v", small)
	}
	// Window 1 keeps the order.
	got := collect[int64](t, shuffled(4, 7, 1, operators.Shuffle[int64](1)))
	if in := unshuffled(1); !sameOrder(got, in) {
		t.Fatal("Shuffle(1) changed the order")
	}
}

// A byte budget of b bytes, one byte a row, holds what a window of b+1
// rows holds: the two give the same stream.
func TestShuffleMaxBytes(t *testing.T) {
	one := func(int64) int { return 1 }
	a := collect[int64](t, shuffled(2, 3, 2, operators.Shuffle[int64](1000, operators.MaxBytes(50, one))))
	b := collect[int64](t, shuffled(2, 3, 2, operators.Shuffle[int64](51)))
	equalItems(t, "MaxBytes(50) against window 51", a, b)
}

func TestBlockShuffle(t *testing.T) {
	const k = 4
	m := checkShuffle(t, func() flow.Stage { return operators.BlockShuffle[int64](k) }, 16)
	t.Logf("block k = %d: %v", k, m)
	if m.SinglePartition > 0.01 || m.MeanRows < shufPart/4 || m.MeanRows > k*shufPart {
		t.Fatalf("k = %d: %v", k, m)
	}
	// No row moves further than the window of k partitions.
	in := unshuffled(1)
	got := relabel(collect[int64](t, shuffled(2, 7, 1, operators.BlockShuffle[int64](k))), in)
	pos := map[rowid.ID]int{}
	for i, it := range in {
		pos[it.ID] = i
	}
	for i, it := range got {
		if d := i - pos[it.ID]; d > (k+1)*shufPart || -d > (k+1)*shufPart {
			t.Fatalf("item %d moved %d rows, more than k+1 partitions", i, d)
		}
	}
}

func TestShuffleBadOptions(t *testing.T) {
	for name, s := range map[string]flow.Stage{
		"window 0":         operators.Shuffle[int64](0),
		"size of string":   operators.Shuffle[int64](10, operators.MaxBytes(5, func(s string) int { return len(s) })),
		"MaxBytes 0":       operators.Shuffle[int64](10, operators.MaxBytes(0, func(int64) int { return 1 })),
		"block k 0":        operators.BlockShuffle[int64](0),
		"block MaxBytes":   operators.BlockShuffle[int64](2, operators.MaxBytes(5, func(int64) int { return 1 })),
		"block items":      operators.BlockShuffle[int64](2, operators.PartitionItems(5)),
		"PartitionItems 0": operators.Shuffle[int64](5, operators.PartitionItems(0)),
	} {
		p := flow.From(source(10, 5, 5)).Via(s)
		var err error
		for _, e := range flow.Items[int64](context.Background(), p) {
			err = e
		}
		if err == nil || !strings.Contains(err.Error(), "operators: ") {
			t.Errorf("%s: error %v", name, err)
		}
	}
	if err := flow.From(source(10, 5, 5)).Via(operators.Shuffle[int64](3)).Parallel(2).Err(); err == nil {
		t.Error("Parallel(2) on Shuffle: no error")
	}
}
