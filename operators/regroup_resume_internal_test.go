package operators

import (
	"context"
	"reflect"
	"testing"

	"github.com/rowflow/rowflow/flow"
)

type regroupStateful interface{ State() RegroupState }

// checkRegroupResume runs a regrouping stage over resumeInput, takes the
// state after every chunk, and resumes a new processor from each: fed the
// input from the state's From on, it must give exactly the rest of the
// run.
func checkRegroupResume[Out any](t *testing.T, build func(opts ...resumeOpt) flow.Operator[int, Out]) {
	t.Helper()
	checkResumeOf(t, func(v int) int { return v }, build)
}

// checkResumeOf is checkRegroupResume for a stage whose input is made of
// resumeInput's values by conv.
func checkResumeOf[In, Out any](t *testing.T, conv func(int) In, build func(opts ...resumeOpt) flow.Operator[In, Out]) {
	t.Helper()
	env := flow.Env{Seed: 11, Position: 2}
	in := resumeInput()
	ctx := context.Background()
	var full collector[Out]
	p := build().NewProcessor(env)
	type mark struct {
		s         RegroupState
		delivered int
	}
	var marks []mark
	chunk := func(c flow.Chunk[int]) flow.Chunk[In] {
		vals := make([]In, len(c.Values))
		for i, v := range c.Values {
			vals[i] = conv(v)
		}
		return flow.Chunk[In]{Part: c.Part, IDs: flow.ListIDs(c.IDs.AppendTo(nil)), Values: vals, End: c.End}
	}
	for _, c := range in {
		if err := p.Process(ctx, chunk(c), &full); err != nil {
			t.Fatal(err)
		}
		marks = append(marks, mark{p.(regroupStateful).State(), len(full.items)})
	}
	if err := p.Flush(ctx, &full); err != nil {
		t.Fatal(err)
	}
	if len(full.items) == 0 {
		t.Fatal("the stage gave nothing")
	}
	for i, m := range marks {
		opt := ResumeRegroup(m.s).(resumeOpt)
		r := build(opt).NewProcessor(env)
		var rest collector[Out]
		started := false
		for j, c := range in {
			if !started {
				e := flow.EpochOf(c.Part)
				started = e == m.s.Epoch && c.Part >= m.s.From.Part || e > m.s.Epoch
			}
			if started {
				if err := r.Process(ctx, chunk(c), &rest); err != nil {
					t.Fatalf("mark %d (%+v): %v", i, m.s, err)
				}
				// A state taken from the resumed run resumes alike.
				if j == len(in)-1 && !reflect.DeepEqual(r.(regroupStateful).State(), marks[len(marks)-1].s) {
					t.Fatalf("mark %d: final state %+v, the uninterrupted run's %+v", i, r.(regroupStateful).State(), marks[len(marks)-1].s)
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
			if !reflect.DeepEqual(rest.items[k], want[k]) {
				t.Fatalf("mark %d (%+v): item %d is %+v, want %+v", i, m.s, k, rest.items[k], want[k])
			}
		}
	}
}

// withResume appends the resume option, if any, to opts.
func withResume[O any](opts []resumeOpt, more ...O) []O {
	for _, o := range opts {
		more = append(more, any(o).(O))
	}
	return more
}

func TestRegroupResumes(t *testing.T) {
	length := func(v int) int { return (v * 7) % 13 }
	for _, n := range []int{1, 5, 16} {
		for _, last := range []Remainder{KeepRemainder, DropRemainder, PadRemainder} {
			checkRegroupResume(t, func(o ...resumeOpt) flow.Operator[int, Rows[int]] {
				return newBatchOp[int](n, withResume[BatchOption](o, LastBatch(last), PartitionItems(3)))
			})
		}
		checkRegroupResume(t, func(o ...resumeOpt) flow.Operator[int, int] {
			op := newReduce[int, int](func(acc, v int) (int, error) { return acc*31 + v, nil }, withResume[ReduceOption](o, PartitionItems(4)))
			op.every = n
			return op
		})
		checkRegroupResume(t, func(o ...resumeOpt) flow.Operator[int, Rows[int]] {
			return newPoolOp(n, 3, length, withResume[PoolOption](o, LastBatch(DropRemainder)))
		})
		checkRegroupResume(t, func(o ...resumeOpt) flow.Operator[int, Rows[int]] {
			return newTableOp[int](n, withResume[TableOption](o, Tables(1, 3, 20), PartitionItems(2)))
		})
	}
	checkRegroupResume(t, func(o ...resumeOpt) flow.Operator[int, int] {
		op := newReduce[int, int](func(acc, v int) (int, error) { return acc + v, nil }, withResume[ReduceOption](o))
		op.sameRun = func(a, b int) bool { return a/9 == b/9 }
		return op
	})
	for _, last := range []Remainder{KeepRemainder, PadRemainder} {
		checkRegroupResume(t, func(o ...resumeOpt) flow.Operator[int, Rows[int]] {
			return newBucketOp(length, withResume[BucketOption](o, Buckets([]int{4, 9}, []int{5, 3, 2}), LastBatch(last)))
		})
	}
	checkRegroupResume(t, func(o ...resumeOpt) flow.Operator[int, Rows[int]] {
		return newBucketOp(length, withResume[BucketOption](o, TokenBudget(30)))
	})
}

func TestPackResumes(t *testing.T) {
	// Sequence v has v%17 tokens: some longer than a row of 10, some empty.
	conv := func(v int) []int32 {
		toks := make([]int32, v%17)
		for k := range toks {
			toks[k] = int32(v*100 + k)
		}
		return toks
	}
	for _, w := range []int{1, 4, 12} {
		for _, o := range []Overlong{SplitOverlong, DropOverlong} {
			checkResumeOf(t, conv, func(opts ...resumeOpt) flow.Operator[[]int32, Packed[int32]] {
				return newPackOp(10, int32(-1), withResume[PackOption](opts, Window(w), OverlongPolicy(o), PartitionItems(3)))
			})
		}
	}
}
