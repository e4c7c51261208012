package operators_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

const indexRows = 10000

func indexSource() flow.RandomAccess[int64] {
	return sources.Generate(indexRows, func(i int64) (int64, error) { return i, nil }, sources.Named(srcName))
}

func indexShuffled(n int, seed uint64, epochs int64) *flow.Pipeline {
	return flow.From(operators.IndexShuffle(indexSource(), operators.PartitionItems(300))).Parallel(n).
		Via(operators.Map(func(v int64) (int64, error) { return v * 3, nil })).Parallel(n).
		Epochs(epochs).WithSeed(seed)
}

func TestIndexShuffle(t *testing.T) {
	ref := collect[int64](t, indexShuffled(1, 5, 2))
	for _, n := range []int{2, 4, 8} {
		equalItems(t, "parallel", collect[int64](t, indexShuffled(n, 5, 2)), ref)
	}
	verify[int64](t, func(n int) *flow.Pipeline { return indexShuffled(n, 5, 2) })
	if len(ref) != 2*indexRows {
		t.Fatalf("%d items, want %d", len(ref), 2*indexRows)
	}
	in := make([]flow.Item[int64], indexRows)
	for i := range in {
		in[i] = flow.Item[int64]{Part: int64(i / 300), ID: sourceID(int64(i)), Value: 3 * int64(i)}
	}
	for e := range 2 {
		ep := ref[e*indexRows : (e+1)*indexRows]
		for i, it := range ep {
			// Rows keep their IDs: the ID says which row the value is.
			if it.ID != sourceID(it.Value/3) || it.Part != epoch.Part(int64(e), int64(i/300)) {
				t.Fatalf("epoch %d, item %d: %+v", e, i, it)
			}
		}
		m, err := determinism.MeasureMixing(in, relabel(ep, in), 16)
		if err != nil {
			t.Fatalf("epoch %d: %v", e, err)
		}
		// A uniform permutation: mean 1/3, spread 0.236.
		if m.Mean < 0.31 || m.Mean > 0.36 || m.Spread < 0.21 || m.Spread > 0.26 || m.SinglePartition > 0.001 {
			t.Fatalf("epoch %d: %v", e, m)
		}
	}
	if sameOrder(ref[:indexRows], ref[indexRows:]) {
		t.Fatal("epochs 0 and 1 have the same order")
	}
	if other := collect[int64](t, indexShuffled(2, 6, 1)); sameOrder(other, ref[:indexRows]) {
		t.Fatal("seeds 5 and 6 give the same order")
	}
}

// The ranks split every epoch evenly: together, merged by partition
// number, they read each row once, in the one-rank order, and their
// shares differ by at most one row an epoch.
func TestIndexShuffleRanks(t *testing.T) {
	whole := collect[int64](t, indexShuffled(2, 5, 1))
	var union []flow.Item[int64]
	var sizes []int
	for r := range 3 {
		got := collect[int64](t, indexShuffled(2, 5, 1).WithRank(r, 3))
		sizes = append(sizes, len(got))
		union = append(union, got...)
	}
	if slices.Max(sizes)-slices.Min(sizes) > 2 {
		t.Errorf("rows per rank over two epochs %v differ by more than one an epoch", sizes)
	}
	slices.SortStableFunc(union, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
	if len(union) != len(whole) {
		t.Fatalf("the ranks read %d rows, the run of one rank %d", len(union), len(whole))
	}
	for i := range union {
		if union[i].ID != whole[i].ID || union[i].Value != whole[i].Value {
			t.Fatalf("ranks sorted by batch: item %d is %+v, want %+v", i, union[i], whole[i])
		}
	}
}

func TestIndexShuffleSlice(t *testing.T) {
	words := []string{"a", "b", "c", "d", "e", "f", "g"}
	got := collect[string](t, flow.From(operators.IndexShuffle(sources.Slice(words, sources.Named("w")))).WithSeed(3))
	var vals []string
	for _, it := range got {
		i := slices.Index(words, it.Value)
		if it.ID != rowid.Ordinal(uint64(i)).Combine(rowid.FromString("w")) {
			t.Fatalf("%q has ID %v", it.Value, it.ID)
		}
		vals = append(vals, it.Value)
	}
	sorted := slices.Clone(vals)
	slices.Sort(sorted)
	if !slices.Equal(sorted, words) || slices.Equal(vals, words) {
		t.Fatalf("order %v", vals)
	}
}

func TestIndexShuffleErrors(t *testing.T) {
	boom := errors.New("boom")
	bad := sources.Generate(100, func(i int64) (int64, error) {
		if i == 42 {
			return 0, boom
		}
		return i, nil
	})
	endless := sources.Generate(-1, func(i int64) (int64, error) { return i, nil })
	for name, c := range map[string]struct {
		src  flow.Source[int64]
		want string
	}{
		"f fails": {operators.IndexShuffle(bad), "row " + rowid.Ordinal(42).Combine(rowid.FromString("generate")).String()},
		"endless": {operators.IndexShuffle(endless), "no length"},
		"bad opt": {operators.IndexShuffle(indexSource(), operators.PartitionItems(0)), "PartitionItems(0)"},
		"nil":     {operators.IndexShuffle[int64](nil), "nil source"},
		"bad src": {operators.IndexShuffle(sources.Slice([]int64{1}, sources.ChunkSize(0))), "ChunkSize(0)"},
	} {
		var err error
		for _, e := range flow.Items[int64](context.Background(), flow.From(c.src).Parallel(2)) {
			err = e
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", name, err, c.want)
		}
		if name == "f fails" && !errors.Is(err, boom) {
			t.Errorf("%s: %v does not wrap the function's error", name, err)
		}
	}
}

// emitter keeps what a partition's Read pushes.
type emitter struct{ items []flow.Item[int64] }

func (e *emitter) Push(_ context.Context, c flow.Chunk[int64]) error {
	for k := range c.Values {
		e.items = append(e.items, c.Item(k))
	}
	return nil
}

// Any partition of any epoch can be read on its own, with nothing read
// before it: what resuming in the middle of an epoch costs.
func TestIndexShuffleReadsAnyPartitionAlone(t *testing.T) {
	full := collect[int64](t, flow.From(operators.IndexShuffle(indexSource(), operators.PartitionItems(300))).Epochs(3).WithSeed(5))
	src := operators.IndexShuffle(indexSource(), operators.PartitionItems(300))
	ctx := context.Background()
	for _, at := range [][2]int64{{2, 17}, {0, 0}, {1, 33}} {
		ep, part := at[0], at[1]
		var want []flow.Item[int64]
		for _, it := range full {
			if it.Part == epoch.Part(ep, part) {
				it.Part = part
				want = append(want, it)
			}
		}
		found := false
		for p, err := range src.Partitions(ctx, flow.Env{Seed: 5, Epoch: ep, World: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			if p.Part != part {
				continue
			}
			found = true
			var e emitter
			if err := p.Read(ctx, &e); err != nil {
				t.Fatal(err)
			}
			equalItems(t, "partition read alone", e.items, want)
		}
		if !found || int64(len(want)) != min(300, indexRows-part*300) {
			t.Fatalf("epoch %d partition %d: found %t, %d items in the full run", ep, part, found, len(want))
		}
	}
}
