package flow_test

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// chainSource keeps state across its partitions, as any source may
// (Info.Serial, Partition.State, Env.Followed, Env.Resume): each row of
// an epoch is computed from the one before, so a partition can only be
// made from where the partition before it ended. It counts the rows it
// computes and the runs that were followed.
type chainSource struct {
	parts, per int64
	noState    bool // keep state but give none: resumed the slow way
	computed   *atomic.Int64
	followed   *atomic.Int64
}

type chainState struct {
	Part int64 `json:"part"` // within the epoch
	Last int64 `json:"last"`
}

func newChain(parts, per int64, noState bool) chainSource {
	return chainSource{parts: parts, per: per, noState: noState, computed: new(atomic.Int64), followed: new(atomic.Int64)}
}

func (s chainSource) Info() flow.Info {
	return flow.Info{Name: "chain", Serial: "each row follows from the one before"}
}

func (s chainSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	return func(yield func(flow.Partition[int64], error) bool) {
		st := chainState{Last: env.Epoch*1000 + int64(env.Seed)}
		if env.Resume != nil {
			if err := json.Unmarshal(env.Resume, &st); err != nil {
				yield(flow.Partition[int64]{}, err)
				return
			}
		}
		if env.Followed {
			s.followed.Add(1)
		}
		for b := st.Part; b < s.parts; b++ {
			p := flow.Partition[int64]{Part: b}
			if env.Followed && !s.noState {
				p.State = st
			}
			vals := make([]int64, s.per)
			for i := range vals {
				st.Last = (st.Last*31 + 7) % 1_000_003
				vals[i] = st.Last
			}
			s.computed.Add(s.per)
			st.Part = b + 1
			p.Read = func(ctx context.Context, out flow.Emitter[int64]) error {
				ids := flow.OrdinalIDs(rowid.FromString("chain"), uint64(b*s.per), len(vals))
				return out.Push(ctx, flow.Chunk[int64]{Part: b, IDs: ids, Values: slices.Clone(vals), End: true})
			}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// A source that keeps state gives it with each partition in a followed
// run, and a checkpoint resumes it from there: the rest of the run,
// exactly, at any parallelism, without computing the rows before the
// checkpoint's partition. One that gives no state is resumed from the
// run's start, dropping what was delivered. (Before Partition.State and
// Env.Followed, only flow's own combinations could keep state.)
func TestSourceKeepsState(t *testing.T) {
	for _, noState := range []bool{false, true} {
		src := newChain(12, 25, noState)
		build := func(s chainSource, par int) *flow.Pipeline {
			return flow.From[int64](s).Via(operators.Map(func(v int64) (int64, error) { return v * 2, nil })).Parallel(par).
				Epochs(2).WithSeed(5)
		}
		plain := testutil.Items[int64](t, build(src, 1))
		if n := src.followed.Load(); n != 0 {
			t.Fatalf("a run without a tracker told the source it was followed %d times", n)
		}
		want, cks := trackedRun(t, build(src, 1))
		if !slices.Equal(want, plain) || len(want) != 2*12*25 {
			t.Fatalf("noState %t: a followed run gave %d items, an unfollowed one %d, or they differ", noState, len(want), len(plain))
		}
		if n := src.followed.Load(); n != 2 {
			t.Fatalf("noState %t: a followed run of 2 epochs told the source it was followed %d times, want 2", noState, n)
		}
		for _, k := range []int{0, 24, 25, 26, 299, 300, 301, 470, len(want) - 2, len(want) - 1} {
			for _, par := range []int{1, 3} {
				s := newChain(12, 25, noState)
				got := testutil.Items[int64](t, build(s, par).Resume(cks[k]))
				if !slices.Equal(got, want[k+1:]) {
					t.Fatalf("noState %t: resumed after item %d at parallelism %d: %d items, want %d", noState, k, par, len(got), len(want)-k-1)
				}
				// From its state, the source computes its rows from the
				// partition of the checkpoint's item on; without, from the
				// run's start.
				from := int64(k) / 25 * 25
				if noState {
					from = 0
				}
				if n := s.computed.Load(); n != int64(len(want))-from {
					t.Fatalf("noState %t: resumed after item %d: the source computed %d rows, want %d", noState, k, n, int64(len(want))-from)
				}
			}
		}
	}
}

// Pass(k) runs the k-th pass of fresh epochs: with Epochs(2), Pass(1)
// gives epochs 2 and 3 of the same pipeline, and its fingerprint differs
// from pass 0's, which is the default's.
func TestPass(t *testing.T) {
	build := func() *flow.Pipeline {
		return flow.From(sources.Generate(300, func(k int64) (int64, error) { return k, nil }, sources.PartitionItems(40))).
			Via(operators.Shuffle[int64](50)).WithSeed(2)
	}
	long := testutil.Items[int64](t, build().Epochs(4))
	got := testutil.Items[int64](t, build().Epochs(2).Pass(1))
	if !slices.Equal(got, long[600:]) {
		t.Fatalf("Epochs(2).Pass(1): %d items, want epochs 2 and 3 of a longer run", len(got))
	}
	if got[0].Epoch() != 2 {
		t.Fatalf("Pass(1) starts in epoch %d, want 2", got[0].Epoch())
	}
	p := build().Epochs(2)
	if p.Pass(0).Fingerprint() != p.Fingerprint() || p.Pass(1).Fingerprint() == p.Fingerprint() {
		t.Fatal("Pass(0) changed the fingerprint, or Pass(1) did not")
	}
	if err := p.Pass(-1).Err(); err == nil || !strings.Contains(err.Error(), "pass -1") {
		t.Fatalf("Pass(-1): %v", err)
	}
}

// The rank is said once: WithRank on a pipeline that has a rank is an
// error naming both.
func TestWithRankOnce(t *testing.T) {
	p := flow.From(sources.Slice([]int{1, 2, 3})).WithRank(0, 2)
	err := p.WithRank(1, 2).Err()
	if err == nil || !strings.Contains(err.Error(), "WithRank(1, 2) on a pipeline that has a rank of its own (WithRank(0, 2))") {
		t.Fatalf("a second WithRank: %v", err)
	}
	if err := flow.From(sources.Slice([]int{1})).WithRank(1, 2).Err(); err != nil {
		t.Fatal(err)
	}
}
