package flow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// resumeShapes are pipelines a cursor set is checkpointed and resumed
// on. Their partitions are small (a few chunks), so that a cursor that
// stops reading holds back only the partition it holds, never the others:
// the cursors of a run can stop at any item, one after the other.
var resumeShapes = []struct {
	name  string
	build func() *flow.Pipeline
}{
	{"parallel", func() *flow.Pipeline {
		return flow.From(sources.Slice(ints(900), sources.PartitionItems(20), sources.ChunkSize(10))).
			Via(operators.Filter(func(v int64) bool { return v%5 != 3 })).Parallel(2).
			Via(operators.Map(func(v int64) (int64, error) { return v*3 + 1, nil })).Parallel(3)
	}},
	{"shuffle+batch", func() *flow.Pipeline {
		return flow.From(sources.Slice(ints(900), sources.PartitionItems(20), sources.ChunkSize(10))).
			Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(3).
			Via(operators.Shuffle[int64](40, operators.PartitionItems(20))).
			Via(operators.Batch[int64](3, operators.PartitionItems(6))).
			Via(operators.Map(func(r operators.Rows[int64]) (int64, error) {
				var x int64
				for _, v := range r.Values {
					x = x*1000 + v
				}
				return x, nil
			})).Parallel(2)
	}},
	{"shuffle last", func() *flow.Pipeline {
		return flow.From(sources.Slice(ints(900), sources.PartitionItems(25), sources.ChunkSize(10))).
			Via(operators.Map(func(v int64) (int64, error) { return v * 7, nil })).Parallel(2).
			Via(operators.Shuffle[int64](30, operators.PartitionItems(15)))
	}},
}

// pull returns a function that hands out c's items one at a time, the
// next function of iter.Pull2(c.All()). The cursor stays open where the
// test leaves it (a checkpoint sees it holding its partition) until the
// test ends, which stops the pull.
func pull(t testing.TB, c *flow.Cursor[int64]) func() (flow.Item[int64], error, bool) {
	next, stop := iter.Pull2(c.All())
	t.Cleanup(stop)
	return next
}

// pullItem returns the next item of next, failing the test at the end of
// its cursor or at an error.
func pullItem(t testing.TB, next func() (flow.Item[int64], error, bool)) flow.Item[int64] {
	t.Helper()
	it, err, ok := next()
	if !ok || err != nil {
		t.Fatalf("the cursor ended (%v) before the item the test reads", err)
	}
	return it
}

// readQuota reads at most quota[i] items from cursor i, each cursor on a
// goroutine of its own, and returns what each read. A quota below 0 reads
// to the end. A cursor that stops at its quota stays open.
func readQuota(t *testing.T, s *flow.CursorSet[int64], quota []int) [][]flow.Item[int64] {
	t.Helper()
	cs := s.Cursors()
	got := make([][]flow.Item[int64], len(cs))
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		next := pull(t, c)
		wg.Go(func() {
			for quota[i] < 0 || len(got[i]) < quota[i] {
				it, err, ok := next()
				if !ok || err != nil {
					errs[i] = err
					return
				}
				got[i] = append(got[i], it)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("cursor %d: %v", i, err)
		}
	}
	return got
}

// roundTrip encodes ck as JSON, checks that it decodes to the same
// checkpoint, and returns the decoded one.
func roundTrip(t *testing.T, ck flow.Checkpoint) flow.Checkpoint {
	t.Helper()
	js, err := json.Marshal(ck)
	if err != nil {
		t.Fatal(err)
	}
	var a flow.Checkpoint
	if err := json.Unmarshal(js, &a); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if ja, _ := json.Marshal(a); string(ja) != string(js) {
		t.Fatalf("the decoded checkpoint differs:\n%s\n%s", js, ja)
	}
	return a
}

// TestCursorSetResume takes the checkpoint of a cursor set after its
// cursors stopped at random items, resumes it with as many cursors and
// with another number, and checks that what the cursors handed out before
// and after, stable-sorted by partition, is the serial stream (every item
// once), and that with as many cursors each cursor goes on with the
// partition it held.
func TestCursorSetResume(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	for _, shape := range resumeShapes {
		ref := testutil.Items[int64](t, shape.build())
		parts := map[int64][]flow.Item[int64]{}
		for _, it := range ref {
			parts[it.Part] = append(parts[it.Part], it)
		}
		for _, n := range []int{1, 2, 3, 5} {
			for trial := range 6 {
				quota := make([]int, n)
				for i := range quota {
					switch trial {
					case 0: // before the first item
					case 1: // past the end
						quota[i] = len(ref) + 1
					default:
						quota[i] = rng.IntN(2 * len(ref) / n)
					}
				}
				for _, m := range []int{n, n%4 + 1} {
					name := fmt.Sprintf("%s n=%d m=%d quota=%v", shape.name, n, m, quota)
					t.Run(name, func(t *testing.T) {
						testutil.CheckGoroutines(t)
						checkResume(t, shape.build, ref, parts, quota, m)
					})
				}
			}
		}
	}
}

func checkResume(t *testing.T, build func() *flow.Pipeline, ref []flow.Item[int64], parts map[int64][]flow.Item[int64], quota []int, m int) {
	n := len(quota)
	tr := new(flow.Tracker)
	s, err := flow.Cursors[int64](context.Background(), build().Checkpoints(tr), n)
	if err != nil {
		t.Fatal(err)
	}
	before := readQuota(t, s, quota)
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ck = roundTrip(t, ck)

	s2, err := flow.Cursors[int64](context.Background(), build().Resume(ck), m)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, m)
	for i := range all {
		all[i] = -1
	}
	after := readQuota(t, s2, all)
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}

	var union []flow.Item[int64]
	for _, items := range before {
		union = append(union, items...)
	}
	for _, items := range after {
		union = append(union, items...)
	}
	slices.SortStableFunc(union, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
	if !slices.Equal(union, ref) {
		t.Fatalf("%d items before and %d after, sorted by partition, are not the serial stream of %d items (checkpoint %s)",
			itemCount(before), itemCount(after), len(ref), jsonOf(ck))
	}
	if m != n {
		return
	}
	for i := range n {
		b, a := before[i], after[i]
		seq := append(slices.Clone(b), a...)
		for k := 1; k < len(seq); k++ {
			if seq[k].Part < seq[k-1].Part {
				t.Fatalf("cursor %d: partition %d after %d", i, seq[k].Part, seq[k-1].Part)
			}
		}
		if len(b) == 0 {
			continue
		}
		p := b[len(b)-1].Part
		had := countBatch(b, p)
		rest := parts[p][had:]
		if len(rest) == 0 {
			continue
		}
		if len(a) < len(rest) || !slices.Equal(a[:len(rest)], rest) {
			t.Fatalf("cursor %d held partition %d after %d of its %d items; resumed, it gives %d items first of partitions %v, not the rest of it",
				i, p, had, len(parts[p]), min(len(a), len(rest)), partsOf(a[:min(len(a), len(rest))]))
		}
	}
}

func itemCount(items [][]flow.Item[int64]) int {
	k := 0
	for _, it := range items {
		k += len(it)
	}
	return k
}

func partsOf(items []flow.Item[int64]) []int64 {
	var ps []int64
	for _, it := range items {
		if len(ps) == 0 || ps[len(ps)-1] != it.Part {
			ps = append(ps, it.Part)
		}
	}
	return ps
}

func jsonOf(ck flow.Checkpoint) string {
	b, err := json.Marshal(ck)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// A checkpoint of a cursor set whose cursors had handed out items past
// its first partition not wholly handed out is not a position of one
// stream: Items refuses it, naming Cursors.
func TestCursorSetCheckpointRefusedByItems(t *testing.T) {
	build := resumeShapes[0].build
	tr := new(flow.Tracker)
	s, err := flow.Cursors[int64](context.Background(), build().Checkpoints(tr), 2)
	if err != nil {
		t.Fatal(err)
	}
	cs := s.Cursors()
	// Cursor 0 takes the first partition and hands out one item; cursor
	// 1 takes the second and hands out one.
	for _, c := range cs {
		pullItem(t, pull(t, c))
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = collectItems[int64](build().Resume(ck))
	if err == nil || !strings.Contains(err.Error(), "resume it with Cursors") {
		t.Fatalf("Items of a cursor set's checkpoint: %v", err)
	}
	// Edited to list cursor 1's partition as held by cursor 0 too, the
	// checkpoint is refused when decoded.
	js := jsonOf(ck)
	var v map[string]any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	held := v["held"].([]any)
	if len(held) != 2 {
		t.Fatalf("held = %v, want the two partitions", held)
	}
	var back flow.Checkpoint
	if err := json.Unmarshal([]byte(strings.Replace(js, `"cursor":1`, `"cursor":0`, 1)), &back); err == nil {
		t.Fatal("an edited checkpoint decoded")
	}
}

// Over an Unordered stage a cursor set has no reproducible position: its
// tracker refuses to take one.
func TestCursorSetCheckpointRefusesUnordered(t *testing.T) {
	p := flow.From(sources.Slice(ints(200), sources.PartitionItems(10))).
		Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(3).Unordered()
	tr := new(flow.Tracker)
	s, err := flow.Cursors[int64](context.Background(), p.Checkpoints(tr), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pullItem(t, pull(t, s.Cursors()[0]))
	if _, err := tr.Checkpoint(); err == nil || !strings.Contains(err.Error(), "Unordered") {
		t.Fatalf("Checkpoint over an Unordered stage: %v", err)
	}
}

// TestCursorSetResumeEveryItem checkpoints a small run of 2 and 3 cursors
// at every combination of items each cursor handed out, and resumes it
// with as many cursors, with one, and reads the resumed set with
// Consolidate: each time, what was handed out before followed by the rest
// is the serial stream.
func TestCursorSetResumeEveryItem(t *testing.T) {
	build := func() *flow.Pipeline {
		return flow.From(sources.Slice(ints(40), sources.PartitionItems(5), sources.ChunkSize(2))).
			Via(operators.Shuffle[int64](6, operators.PartitionItems(4))).
			Via(operators.Map(func(v int64) (int64, error) { return v * 2, nil })).Parallel(2)
	}
	ref := testutil.Items[int64](t, build())
	parts := map[int64][]flow.Item[int64]{}
	for _, it := range ref {
		parts[it.Part] = append(parts[it.Part], it)
	}
	testutil.CheckGoroutines(t)
	for a := 0; a <= len(ref); a += 3 {
		for b := 0; a+b <= len(ref); b += 2 {
			for _, quota := range [][]int{{a, b}, {b, a, 3}} {
				for _, m := range []int{len(quota), 1} {
					checkResume(t, build, ref, parts, quota, m)
				}
			}
		}
	}
	// Consolidate reads a resumed set in serial order.
	tr := new(flow.Tracker)
	s, err := flow.Cursors[int64](context.Background(), build().Checkpoints(tr), 3)
	if err != nil {
		t.Fatal(err)
	}
	before := readQuota(t, s, []int{7, 3, 5})
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := flow.Cursors[int64](context.Background(), build().Resume(ck), 3)
	if err != nil {
		t.Fatal(err)
	}
	union := slices.Concat(before...)
	for it, err := range s2.Consolidate() {
		if err != nil {
			t.Fatal(err)
		}
		union = append(union, it)
	}
	slices.SortStableFunc(union, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
	if !slices.Equal(union, ref) {
		t.Fatalf("Consolidate of the resumed set: %d items with those before, want the %d of the serial stream", len(union), len(ref))
	}
}

// A position made by At is found in the serial stream: Cursors refuses
// it rather than hand out the items before it.
func TestCursorsRefusesAt(t *testing.T) {
	_, err := flow.Cursors[int64](context.Background(), resumeShapes[0].build().Resume(flow.At(0, 5)), 2)
	if err == nil || !strings.Contains(err.Error(), "At") {
		t.Fatalf("Cursors from At(0, 5): %v", err)
	}
}

// A cursor closed inside its partition hands out nothing more of it: the
// set's checkpoint lists the partition as no cursor's, and the resumed
// set hands out its rest, to another cursor, with as many cursors too.
func TestCursorSetResumeAfterCursorClose(t *testing.T) {
	for _, shape := range resumeShapes {
		ref := testutil.Items[int64](t, shape.build())
		for _, m := range []int{3, 2} {
			testutil.CheckGoroutines(t)
			tr := new(flow.Tracker)
			s, err := flow.Cursors[int64](context.Background(), shape.build().Checkpoints(tr), 3)
			if err != nil {
				t.Fatal(err)
			}
			c0 := s.Cursors()[0]
			next := pull(t, c0)
			var first []flow.Item[int64]
			for range 2 {
				first = append(first, pullItem(t, next))
			}
			c0.Close()
			before := readQuota(t, s, []int{0, 40, 70})
			before[0] = first
			ck, err := tr.Checkpoint()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s2, err := flow.Cursors[int64](context.Background(), shape.build().Resume(roundTrip(t, ck)), m)
			if err != nil {
				t.Fatal(err)
			}
			after := readQuota(t, s2, []int{-1, -1, -1}[:m])
			if err := s2.Close(); err != nil {
				t.Fatal(err)
			}
			union := slices.Concat(slices.Concat(before...), slices.Concat(after...))
			slices.SortStableFunc(union, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
			if !slices.Equal(union, ref) {
				t.Fatalf("%s m=%d: %d items before and after a closed cursor, want the %d of the serial stream (checkpoint %s)",
					shape.name, m, len(union), len(ref), jsonOf(ck))
			}
		}
	}
}

// A resumed set whose cursors are read one after the other, on one
// goroutine, does not wait for ever: the partitions the other cursors
// held are read into memory for them while the first cursor waits for its
// own, behind them in the stream. Here the source is the last stage, which
// buffers 4 chunks of a partition: cursor 1, read first, receives
// partition 0 (cursor 0's, 6 chunks) before its own.
func TestCursorSetResumeReadInTurn(t *testing.T) {
	build := func() *flow.Pipeline {
		return flow.From(sources.Slice(ints(120), sources.PartitionItems(12), sources.ChunkSize(2)))
	}
	ref := testutil.Items[int64](t, build())
	testutil.CheckGoroutines(t)
	tr := new(flow.Tracker)
	s, err := flow.Cursors[int64](context.Background(), build().Checkpoints(tr), 2)
	if err != nil {
		t.Fatal(err)
	}
	var before []flow.Item[int64]
	for _, c := range s.Cursors() {
		next := pull(t, c)
		for range 6 {
			before = append(before, pullItem(t, next))
		}
	}
	if before[0].Part != 0 || before[6].Part != 1 {
		t.Fatalf("cursors 0 and 1 hold partitions %d and %d, want 0 and 1", before[0].Part, before[6].Part)
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := flow.Cursors[int64](context.Background(), build().Resume(ck), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var after []flow.Item[int64]
	for _, c := range slices.Backward(s2.Cursors()) {
		for it, err := range c.All() {
			if err != nil {
				t.Fatal(err)
			}
			after = append(after, it)
		}
	}
	if after[0].Part != 1 || !slices.Equal(after[:6], ref[18:24]) {
		t.Fatalf("cursor 1 resumed with %v, want the rest of partition 1", after[:6])
	}
	union := append(before, after...)
	slices.SortStableFunc(union, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
	if !slices.Equal(union, ref) {
		t.Fatalf("%d items, want the %d of the serial stream", len(union), len(ref))
	}
}

// A resumed set is followed too: its checkpoint, taken after its cursors
// stopped again, resumes a third set, with the same or another number of
// cursors, and the three sets hand out the serial stream between them.
func TestCursorSetResumeTwice(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 2))
	for _, shape := range resumeShapes {
		ref := testutil.Items[int64](t, shape.build())
		for range 6 {
			ns := []int{1 + rng.IntN(4), 1 + rng.IntN(4), 1 + rng.IntN(4)}
			testutil.CheckGoroutines(t)
			var ck *flow.Checkpoint
			var union []flow.Item[int64]
			for k, n := range ns {
				p := shape.build()
				if ck != nil {
					p = p.Resume(*ck)
				}
				tr := new(flow.Tracker)
				s, err := flow.Cursors[int64](context.Background(), p.Checkpoints(tr), n)
				if err != nil {
					t.Fatal(err)
				}
				quota := make([]int, n)
				for i := range quota {
					quota[i] = rng.IntN(len(ref) / 2 / n)
					if k == len(ns)-1 {
						quota[i] = -1
					}
				}
				got := readQuota(t, s, quota)
				c, err := tr.Checkpoint()
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				c = roundTrip(t, c)
				ck = &c
				union = append(union, slices.Concat(got...)...)
			}
			slices.SortStableFunc(union, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
			if !slices.Equal(union, ref) {
				t.Fatalf("%s: cursors %v: %d items, want the %d of the serial stream", shape.name, ns, len(union), len(ref))
			}
		}
	}
}

// Resumed with as many cursors, a cursor goes on with the partition it
// held and never goes back: the rest of a partition that a closed cursor
// left goes to a cursor that has taken no later one.
func TestCursorSetResumeNeverGoesBack(t *testing.T) {
	build := func() *flow.Pipeline {
		return flow.From(sources.Slice(ints(40), sources.PartitionItems(3), sources.ChunkSize(2))).
			Via(operators.Map(func(v int64) (int64, error) { return v*3 + 1, nil })).Parallel(4)
	}
	ref := testutil.Items[int64](t, build())
	testutil.CheckGoroutines(t)
	tr := new(flow.Tracker)
	s, err := flow.Cursors[int64](context.Background(), build().Checkpoints(tr), 3)
	if err != nil {
		t.Fatal(err)
	}
	cs := s.Cursors()
	before := make([][]flow.Item[int64], 3)
	for i, k := range []int{2, 2, 2} { // partitions 0, 1 and 2
		next := pull(t, cs[i])
		for range k {
			before[i] = append(before[i], pullItem(t, next))
		}
	}
	cs[0].Close() // partition 0 is no cursor's
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := flow.Cursors[int64](context.Background(), build().Resume(ck), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	// Cursor 1 is read to its end first: it must not take partition 0.
	after := make([][]flow.Item[int64], 3)
	for _, i := range []int{1, 2, 0} {
		for it, err := range s2.Cursors()[i].All() {
			if err != nil {
				t.Fatal(err)
			}
			after[i] = append(after[i], it)
		}
	}
	for i := range 3 {
		seq := partsOf(append(slices.Clone(before[i]), after[i]...))
		if !slices.IsSorted(seq) {
			t.Errorf("cursor %d: partitions %v before the checkpoint, %v after", i, partsOf(before[i]), partsOf(after[i]))
		}
	}
	union := slices.Concat(slices.Concat(before...), slices.Concat(after...))
	slices.SortStableFunc(union, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
	if !slices.Equal(union, ref) {
		t.Fatalf("%d items, want the %d of the serial stream", len(union), len(ref))
	}
}
