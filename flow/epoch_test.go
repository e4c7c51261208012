package flow_test

import (
	"context"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// epochSource reads its partitions in reverse in odd epochs and records
// the Env of every plan, so tests see that every epoch is planned anew.
type epochSource struct {
	parts int64
	size  int64
	envs  chan flow.Env
}

func (s *epochSource) Info() flow.Info { return flow.Info{Name: "epochs", Ranked: true} }

func (s *epochSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	if s.envs != nil {
		s.envs <- env
	}
	return func(yield func(flow.Partition[int64], error) bool) {
		for b := range s.parts {
			lo := b * s.size
			if env.Epoch%2 == 1 {
				lo = (s.parts - 1 - b) * s.size
			}
			p := flow.Partition[int64]{Part: b, Read: func(ctx context.Context, out flow.Emitter[int64]) error {
				vals := slicepool.Alloc[int64](int(s.size))
				for i := range s.size {
					vals = append(vals, lo+i)
				}
				return out.Push(ctx, flow.Chunk[int64]{Part: b, IDs: flow.OrdinalIDs(sourceBase, uint64(lo), len(vals)), Values: vals, End: true})
			}}
			if !yield(p, nil) {
				return
			}
		}
	}
}

var sourceBase = rowid.FromString("epochs")

func TestEpochsReplanTheSource(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		src := &epochSource{parts: 5, size: 3, envs: make(chan flow.Env, 8)}
		got := testutil.Items[int64](t, flow.From(src).Epochs(3).WithSeed(9).WithRank(1, 2))
		close(src.envs)
		var epochs []int64
		for env := range src.envs {
			if env.Seed != 9 || env.Rank != 1 || env.World != 2 {
				t.Errorf("env %+v: want seed 9, rank 1 of 2", env)
			}
			epochs = append(epochs, env.Epoch)
		}
		if !slices.Equal(epochs, []int64{0, 1, 2}) {
			t.Fatalf("planned epochs %v, want [0 1 2]", epochs)
		}
		if len(got) != 45 {
			t.Fatalf("%d items, want 45", len(got))
		}
		for i, it := range got {
			e, k := int64(i/15), int64(i%15)
			want := k
			if e == 1 {
				want = (4-k/3)*3 + k%3
			}
			if it.Value != want || it.Epoch() != e || epoch.Partition(it.Part) != k/3 ||
				it.Part != epoch.Part(e, k/3) {
				t.Fatalf("item %d: %+v, want value %d in epoch %d, partition %d", i, it, want, e, k/3)
			}
		}
	})
}

// Every epoch of a parallel pipeline is the serial one, and every ID
// appears once per epoch.
func TestEpochsSerialEqualsParallel(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		build := func(n int) *flow.Pipeline {
			return flow.From(sources.Generate(5000, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(300))).
				Parallel(n).Via(operators.Filter(func(v int64) bool { return v%7 != 0 })).Parallel(n).Epochs(3)
		}
		ref := testutil.Items[int64](t, build(1))
		per := len(ref) / 3
		for e := range 3 {
			ids := map[any]bool{}
			for _, it := range ref[e*per : (e+1)*per] {
				if it.Epoch() != int64(e) || ids[it.ID] {
					t.Fatalf("epoch %d: item %+v in the wrong epoch or twice", e, it)
				}
				ids[it.ID] = true
			}
		}
		for _, n := range []int{2, 4, 8} {
			if got := testutil.Items[int64](t, build(n)); !slices.Equal(got, ref) {
				t.Fatalf("parallelism %d differs from serial", n)
			}
		}
	})
}

func TestEpochsForeverEndsDownstream(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		p := flow.From(sources.Slice([]int64{1, 2, 3})).Epochs(flow.Forever).Via(operators.Take[int64](7))
		got := testutil.Items[int64](t, p)
		var vals []int64
		for _, it := range got {
			vals = append(vals, it.Value)
		}
		if !slices.Equal(vals, []int64{1, 2, 3, 1, 2, 3, 1}) || epoch.Of(got[6].Part) != 2 {
			t.Fatalf("got %v (last partition %d)", vals, got[6].Part)
		}
		// An empty source repeated forever ends.
		if got := testutil.Items[int64](t, flow.From(sources.Slice([]int64{})).Epochs(-1)); len(got) != 0 {
			t.Fatalf("empty source: %d items", len(got))
		}
	})
}

func TestEpochsErrors(t *testing.T) {
	for _, p := range []*flow.Pipeline{
		flow.From(sources.Slice([]int64{1})).Epochs(0),
		flow.From(sources.Slice([]int64{1})).Epochs(1 << 31),
		flow.From(sources.Slice([]int64{1})).WithRank(2, 2),
		flow.From(sources.Slice([]int64{1})).WithRank(0, 0),
	} {
		if p.Err() == nil {
			t.Errorf("no build error")
		}
	}
	big := &bigBatchSource{}
	for it, err := range flow.Items[int64](context.Background(), flow.From(big).Epochs(2)) {
		if err == nil {
			t.Fatalf("item %+v from a source numbering past 2^32 in a run of two epochs", it)
		}
		if !strings.Contains(err.Error(), `stage "big"`) || !strings.Contains(err.Error(), "outside [0, 2^32)") {
			t.Fatalf("error %q does not name the source and the range", err)
		}
	}
	// One epoch keeps any partition numbers.
	if got := testutil.Items[int64](t, flow.From(big)); len(got) != 1 || got[0].Part != 1<<40 {
		t.Fatalf("one epoch: %+v", got)
	}
}

type bigBatchSource struct{}

func (bigBatchSource) Info() flow.Info { return flow.Info{Name: "big"} }

func (bigBatchSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	return func(yield func(flow.Partition[int64], error) bool) {
		yield(flow.Partition[int64]{Part: 1 << 40, Read: func(ctx context.Context, out flow.Emitter[int64]) error {
			return out.Push(ctx, flow.Chunk[int64]{Part: 1 << 40, IDs: flow.ListIDs(make([]rowid.ID, 1)), Values: []int64{5}, End: true})
		}}, nil)
	}
}
