package operators

import (
	"context"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// collector is an Emitter that keeps the items pushed to it.
type collector[T any] struct{ items []flow.Item[T] }

func (c *collector[T]) Push(_ context.Context, ch flow.Chunk[T]) error {
	for k := range ch.Values {
		c.items = append(c.items, ch.Item(k))
	}
	return nil
}

// resumeInput is two epochs of partitions of uneven sizes, some empty, in
// chunks of up to 7 rows; the epoch's partition numbers have gaps.
func resumeInput() []flow.Chunk[int] {
	var out []flow.Chunk[int]
	base := rowid.FromString("resume")
	for e := range int64(2) {
		row := 0
		for q := range int64(40) {
			n := int((q * 37) % 23)
			if q%9 == 4 {
				n = 0
			}
			b := flow.EpochPart(e, 2*q)
			for lo := 0; ; lo += 7 {
				hi := min(lo+7, n)
				vals := make([]int, 0, hi-lo)
				for i := lo; i < hi; i++ {
					vals = append(vals, row+i)
				}
				out = append(out, flow.Chunk[int]{Part: b, IDs: flow.OrdinalIDs(base, uint64(row+lo), hi-lo), Values: vals, End: hi == n})
				if hi == n {
					break
				}
			}
			row += n
		}
	}
	return out
}

type stateful interface{ State() OrderState }

// checkResume runs stage over the input, takes the state after every
// chunk, and resumes a new processor from each: fed the input from the
// state's partition on (the first partition whose partition number is at
// least the state's, in the state's epoch or a later one), it must give
// exactly the rest of the run.
func checkResume(t *testing.T, build func(...ShuffleOption) flow.Operator[int, int]) {
	t.Helper()
	env := flow.Env{Seed: 11, Position: 2}
	in := resumeInput()
	ctx := context.Background()
	var full collector[int]
	p := build().NewProcessor(env)
	type mark struct {
		s         OrderState
		delivered int
	}
	var marks []mark
	for _, c := range in {
		c.IDs, c.Values = flow.ListIDs(c.IDs.AppendTo(nil)), slices.Clone(c.Values) // processors own their chunks
		if err := p.Process(ctx, c, &full); err != nil {
			t.Fatal(err)
		}
		marks = append(marks, mark{p.(stateful).State(), len(full.items)})
	}
	if err := p.Flush(ctx, &full); err != nil {
		t.Fatal(err)
	}
	for i, m := range marks {
		r := build(Resume(m.s)).NewProcessor(env)
		var rest collector[int]
		started := false
		for _, c := range in {
			if !started {
				e := flow.EpochOf(c.Part)
				started = e == m.s.Epoch && c.Part >= m.s.Partition || e > m.s.Epoch
			}
			if started {
				c.IDs, c.Values = flow.ListIDs(c.IDs.AppendTo(nil)), slices.Clone(c.Values)
				if err := r.Process(ctx, c, &rest); err != nil {
					t.Fatalf("mark %d (%+v): %v", i, m.s, err)
				}
			}
		}
		if err := r.Flush(ctx, &rest); err != nil {
			t.Fatal(err)
		}
		want := full.items[m.delivered:]
		if len(rest.items) != len(want) {
			t.Fatalf("mark %d (%+v): resumed run gives %d items, want %d", i, m.s, len(rest.items), len(want))
		}
		for k := range want {
			if rest.items[k] != want[k] {
				t.Fatalf("mark %d (%+v): item %d is %+v, want %+v", i, m.s, k, rest.items[k], want[k])
			}
		}
	}
}

func TestShuffleResumes(t *testing.T) {
	for _, w := range []int{1, 5, 30} {
		checkResume(t, func(o ...ShuffleOption) flow.Operator[int, int] {
			return newShuffle[int](w, append(o, PartitionItems(13)))
		})
	}
	// With a byte budget the state points at the epoch's start.
	checkResume(t, func(o ...ShuffleOption) flow.Operator[int, int] {
		return newShuffle[int](30, append(o, MaxBytes(40, func(v int) int { return v % 5 })))
	})
}

func TestBlockShuffleResumes(t *testing.T) {
	for _, k := range []int{1, 3, 8} {
		checkResume(t, func(o ...ShuffleOption) flow.Operator[int, int] {
			return newBlock[int](k, o)
		})
	}
}
