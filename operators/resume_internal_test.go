package operators

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
	"github.com/rowflow/rowflow/rowid"
)

// resumeInput is two epochs of partitions of uneven sizes, some empty, in
// chunks of up to 7 rows; the epoch's partition numbers have gaps.
func resumeInput() []flow.Chunk[int] {
	return resumeInputOf(40, func(q int64) int { return int((q * 37) % 23) }, 7)
}

// resumeInputOf is two epochs of parts partitions, partition q of size(q)
// rows (none if q%9 == 4), in chunks of up to chunk rows, numbered 2q.
func resumeInputOf(parts int64, size func(int64) int, chunk int) []flow.Chunk[int] {
	var out []flow.Chunk[int]
	base := rowid.FromString("resume")
	for e := range int64(2) {
		row := 0
		for q := range parts {
			n := size(q)
			if q%9 == 4 {
				n = 0
			}
			b := epoch.Part(e, 2*q)
			for lo := 0; ; lo += chunk {
				hi := min(lo+chunk, n)
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

// bigInput has partitions of up to 4000 rows in chunks of 700, so that
// stages push several chunks per output partition.
func bigInput() []flow.Chunk[int] {
	return resumeInputOf(7, func(q int64) int { return int((q*1301)%4000) + 1 }, 700)
}

// from returns the chunks a resumed stage is fed when its input restarts
// at m, as the runtime feeds it: the partitions numbered m.Part or more,
// without the first m.Row rows of partition m.Part.
func from(in []flow.Chunk[int], m flow.Mark) []flow.Chunk[int] {
	var out []flow.Chunk[int]
	drop := m.Row
	for _, c := range in {
		switch {
		case c.Part < m.Part:
			continue
		case c.Part == m.Part && drop > 0:
			n := min(drop, int64(len(c.Values)))
			drop -= n
			c.Values, c.IDs = c.Values[n:], c.IDs.Slice(int(n), len(c.Values))
			if len(c.Values) == 0 && !c.End {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// event is one item of a stage's output, or the end of an output
// partition.
type event[T any] struct {
	item flow.Item[T]
	end  bool
}

// point is a checkpoint taken after a push: the state as JSON, the input
// mark, and how many output events came before it.
type point struct {
	state []byte
	in    flow.Mark
	at    int
}

// recorder is an Emitter that keeps the items pushed to it and the ends of
// partitions and, as the runtime does, asks the processor for a
// checkpoint after every push.
type recorder[T any] struct {
	events []event[T]
	proc   flow.Checkpointer
	points []point
	err    error
}

func (r *recorder[T]) Push(_ context.Context, ch flow.Chunk[T]) error {
	for k := range ch.Values {
		r.events = append(r.events, event[T]{item: ch.Item(k)})
	}
	if ch.End {
		r.events = append(r.events, event[T]{item: flow.Item[T]{Part: ch.Part}, end: true})
	}
	s, in := r.proc.Checkpoint()
	js, err := json.Marshal(s)
	if err != nil && r.err == nil {
		r.err = err
	}
	r.points = append(r.points, point{js, in, len(r.events)})
	return nil
}

// runStage runs a new processor of op with env over in (whose values conv
// makes the stage's input), checkpointing after every push.
func runStage[In, Out any](t *testing.T, op flow.Operator[In, Out], env flow.Env, conv func(int) In, in []flow.Chunk[int]) *recorder[Out] {
	t.Helper()
	ctx := context.Background()
	p := op.NewProcessor(env)
	cp, ok := p.(flow.Checkpointer)
	if !ok {
		t.Fatalf("%T is not a flow.Checkpointer", p)
	}
	r := &recorder[Out]{proc: cp}
	for _, c := range in {
		vals := make([]In, len(c.Values))
		for i, v := range c.Values {
			vals[i] = conv(v)
		}
		// Processors own their chunks: each gets copies.
		ch := flow.Chunk[In]{Part: c.Part, IDs: flow.ListIDs(c.IDs.AppendTo(nil)), Values: vals, End: c.End}
		if err := p.Process(ctx, ch, r); err == flow.ErrStop {
			return r // the stage ended the stream: it is not flushed
		} else if err != nil {
			t.Fatalf("resume state %s: %v", env.Resume, err)
		}
	}
	if err := p.Flush(ctx, r); err != nil {
		t.Fatalf("resume state %s: %v", env.Resume, err)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r
}

// checkResume runs the stage built by op over resumeInput, takes a
// checkpoint after every chunk it pushes, and resumes a new processor from
// each, its state given as JSON in Env.Resume and its input fed from the
// checkpoint's mark: it must give exactly the rest of the run, items (IDs,
// values, partition numbers) and partition ends. The last checkpoint of a
// resumed run must equal the uninterrupted run's.
func checkResume[Out any](t *testing.T, op func() flow.Operator[int, Out]) {
	t.Helper()
	checkResumeOf(t, resumeInput(), func(v int) int { return v }, op)
}

// checkResumeOf is checkResume for a stage whose input is made of in's
// values by conv.
func checkResumeOf[In, Out any](t *testing.T, in []flow.Chunk[int], conv func(int) In, op func() flow.Operator[In, Out]) {
	t.Helper()
	env := flow.Env{Seed: 11, Position: 2}
	full := runStage(t, op(), env, conv, in)
	if len(full.events) == 0 || len(full.points) == 0 {
		t.Fatal("the stage gave nothing")
	}
	check := func(name string, pt point, at int) *recorder[Out] {
		t.Helper()
		env.Resume = pt.state
		rest := runStage(t, op(), env, conv, from(in, pt.in))
		want := full.events[at:]
		if len(rest.events) != len(want) {
			t.Fatalf("%s: resumed run gives %d events, want %d", name, len(rest.events), len(want))
		}
		for k := range want {
			if !reflect.DeepEqual(rest.events[k], want[k]) {
				t.Fatalf("%s: event %d is %+v, want %+v", name, k, rest.events[k], want[k])
			}
		}
		if len(rest.points) > 0 {
			got, last := rest.points[len(rest.points)-1], full.points[len(full.points)-1]
			if string(got.state) != string(last.state) || got.in != last.in {
				t.Fatalf("%s: last checkpoint %s from %+v, the uninterrupted run's %s from %+v", name, got.state, got.in, last.state, last.in)
			}
		}
		return rest
	}
	for i, pt := range full.points {
		// The README's test command resumes from every fourth checkpoint
		// and the last; the long tests from every one.
		if !longtest.On() && i%4 != 0 && i != len(full.points)-1 {
			continue
		}
		name := fmt.Sprintf("checkpoint %d of %d (%s, input from %+v)", i, len(full.points), pt.state, pt.in)
		rest := check(name, pt, pt.at)
		// The checkpoints of the resumed run resume alike: its first, where
		// what it set up when resumed shows, and one further on.
		for _, j := range []int{0, len(rest.points) / 2} {
			if j < len(rest.points) {
				pt2 := rest.points[j]
				check(fmt.Sprintf("%s, then its checkpoint %d (%s, input from %+v)", name, j, pt2.state, pt2.in), pt2, pt.at+pt2.at)
			}
		}
	}
}

func TestShuffleResumes(t *testing.T) {
	for _, w := range []int{1, 5, 30} {
		checkResume(t, func() flow.Operator[int, int] {
			return newShuffle[int](w, []ShuffleOption{PartitionItems(13)})
		})
	}
	// Output partitions of 4096 rows, pushed at the end of every input chunk.
	checkResumeOf(t, bigInput(), func(v int) int { return v }, func() flow.Operator[int, int] {
		return newShuffle[int](700, nil)
	})
	// With a byte budget the input restarts at the epoch's start.
	checkResume(t, func() flow.Operator[int, int] {
		return newShuffle[int](30, []ShuffleOption{MaxBytes(40, func(v int) int { return v % 5 })})
	})
}

func TestBlockShuffleResumes(t *testing.T) {
	for _, k := range []int{1, 3, 8} {
		checkResume(t, func() flow.Operator[int, int] { return newBlock[int](k, nil) })
	}
	// Output partitions of more than one chunk.
	checkResumeOf(t, bigInput(), func(v int) int { return v }, func() flow.Operator[int, int] { return newBlock[int](2, nil) })
}

func TestRegroupResumes(t *testing.T) {
	length := func(v int) int { return (v * 7) % 13 }
	for _, n := range []int{1, 5, 16} {
		for _, last := range []remainder{remainderKeep, remainderDrop, remainderPad} {
			checkResume(t, func() flow.Operator[int, Rows[int]] {
				return newBatchOp[int](n, []BatchOption{remainderOption("last", last), PartitionItems(3)})
			})
		}
		for _, last := range []remainder{remainderKeep, remainderDrop} {
			checkResume(t, func() flow.Operator[int, int] {
				op := newReduce[int, int](func(acc, v int) (int, error) { return acc*31 + v, nil }, []ReduceOption{PartitionItems(4), remainderOption("last", last)})
				op.every = n
				return op
			})
		}
		checkResume(t, func() flow.Operator[int, Rows[int]] {
			return newPoolOp(n, 3, length, []BatchOption{DropRemainder()})
		})
		for _, last := range []remainder{remainderKeep, remainderDrop, remainderPad} {
			checkResume(t, func() flow.Operator[int, Rows[int]] {
				return newTableOp[int](n, []TableOption{Tables(1, 3, 20), PartitionItems(2), remainderOption("last", last)})
			})
		}
	}
	checkResume(t, func() flow.Operator[int, int] {
		op := newReduce[int, int](func(acc, v int) (int, error) { return acc + v, nil }, nil)
		op.sameRun = func(a, b int) bool { return a/9 == b/9 }
		return op
	})
	for _, last := range []remainder{remainderKeep, remainderDrop, remainderPad} {
		checkResume(t, func() flow.Operator[int, Rows[int]] {
			return newBucketOp(length, []BucketOption{Buckets([]int{4, 9}, []int{5, 3, 2}), remainderOption("last", last)})
		})
	}
	for _, last := range []remainder{remainderKeep, remainderDrop} {
		checkResume(t, func() flow.Operator[int, Rows[int]] {
			return newBucketOp(length, []BucketOption{TokenBudget(30), remainderOption("last", last)})
		})
		checkResume(t, func() flow.Operator[int, Rows[int]] {
			return newBucketOp(length, []BucketOption{TokenBudget(30), Buckets([]int{4, 9}, []int{5, 3, 2}), remainderOption("last", last)})
		})
	}
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
		for _, drop := range []bool{false, true} {
			checkResumeOf(t, resumeInput(), conv, func() flow.Operator[[]int32, Packed[int32]] {
				opts := []PackOption{Window(w), PartitionItems(3)}
				if drop {
					opts = append(opts, DropOverlong())
				}
				return newPackOp(10, int32(-1), opts)
			})
		}
	}
}

func TestTakeResumes(t *testing.T) {
	for _, n := range []int64{1, 30, 500, 5000} {
		checkResume(t, func() flow.Operator[int, int] { return takeOp[int]{n: n} })
	}
}

// A resume state that no processor reports fails the run at its first
// chunk, naming the stage.
func TestBadResumeStates(t *testing.T) {
	ops := map[string]func() flow.Processor[int, int]{}
	for name, bad := range map[string]string{
		"negative": `{"Epoch":0,"Index":-1}`, "not JSON": `{"Epoch":`, "wrong type": `{"Epoch":"x"}`,
	} {
		ops["shuffle "+name] = func() flow.Processor[int, int] {
			return newShuffle[int](5, nil).NewProcessor(flow.Env{Resume: json.RawMessage(bad)})
		}
		ops["block "+name] = func() flow.Processor[int, int] {
			return newBlock[int](2, nil).NewProcessor(flow.Env{Resume: json.RawMessage(bad)})
		}
	}
	ops["shuffle MaxBytes mid-epoch"] = func() flow.Processor[int, int] {
		return newShuffle[int](5, []ShuffleOption{MaxBytes(5, func(int) int { return 1 })}).NewProcessor(flow.Env{Resume: json.RawMessage(`{"Index":3}`)})
	}
	ops["block output past k"] = func() flow.Processor[int, int] {
		return newBlock[int](2, nil).NewProcessor(flow.Env{Resume: json.RawMessage(`{"Index":1,"Output":4}`)})
	}
	ops["reduce negative"] = func() flow.Processor[int, int] {
		return newReduce[int, int](func(a, v int) (int, error) { return a + v, nil }, nil).NewProcessor(flow.Env{Resume: json.RawMessage(`{"From":{"Part":0,"Row":-2}}`)})
	}
	ops["take beyond its count"] = func() flow.Processor[int, int] {
		return takeOp[int]{n: 3}.NewProcessor(flow.Env{Resume: json.RawMessage(`{"Left":4}`)})
	}
	ops["shuffle in a later epoch"] = func() flow.Processor[int, int] {
		return newShuffle[int](5, nil).NewProcessor(flow.Env{Resume: json.RawMessage(`{"Epoch":3}`)})
	}
	for name, op := range ops {
		c := flow.Chunk[int]{Values: []int{1, 2}, IDs: flow.ListIDs(make([]rowid.ID, 2)), End: true}
		err := op().Process(context.Background(), c, &recorder[int]{proc: nopCheckpoint{}})
		if err == nil || !strings.HasPrefix(err.Error(), "operators: ") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

type nopCheckpoint struct{}

func (nopCheckpoint) Checkpoint() (any, flow.Mark) { return nil, flow.Mark{} }
