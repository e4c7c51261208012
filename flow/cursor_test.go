package flow_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

var cursorCounts = []int{1, 2, 3, 4, 8}

// uneven is a pipeline with a filter, a flat-map and a map whose work per
// value varies a lot, its stages at parallelism w, the last at last.
func uneven(w, last int) *flow.Pipeline {
	return flow.From(sources.Slice(ints(30000), sources.PartitionItems(450), sources.ChunkSize(50))).
		Via(operators.Filter(func(v int64) bool { return v%7 != 0 && (v/450)%6 != 4 })).Parallel(w).
		Via(operators.FlatMap(func(v int64) ([]int64, error) { return make([]int64, v%3), nil })).Parallel(w).
		Via(operators.Map(func(v int64) (int64, error) {
			x := v
			for range (v * 7919) % 300 {
				x = x*31 + 1
			}
			return x, nil
		})).Parallel(last)
}

// progress counts the items all consumers have read and closes reached
// when the count reaches at.
type progress struct {
	n       atomic.Int64
	at      int64
	reached chan struct{}
}

func (p *progress) add() {
	if p.n.Add(1) == p.at {
		close(p.reached)
	}
}

// consumer reads one cursor at its own pace: after each item it makes
// rounds round trips through a channel with a goroutine of its own.
func consumer(c *flow.Cursor[int64], rounds int, got *[]flow.Item[int64], seen *progress) error {
	ping, pong := make(chan int), make(chan int)
	defer close(ping)
	go func() {
		defer close(pong)
		for v := range ping {
			pong <- v + 1
		}
	}()
	for it, err := range c.All() {
		if err != nil {
			return err
		}
		*got = append(*got, it)
		seen.add()
		for r := range rounds {
			ping <- r
			<-pong
		}
	}
	return nil
}

// readAll reads every cursor of s on a goroutine of its own. Consumer i
// works i*3 rounds per item; consumer 0, when there are others, waits
// until the others have read 2000 items (or all ended) before it starts.
func readAll(t *testing.T, s *flow.CursorSet[int64]) [][]flow.Item[int64] {
	t.Helper()
	cs := s.Cursors()
	got := make([][]flow.Item[int64], len(cs))
	errs := make([]error, len(cs))
	seen := &progress{at: 2000, reached: make(chan struct{})}
	start := make(chan struct{})
	var others sync.WaitGroup
	var all sync.WaitGroup
	for i, c := range cs {
		if i > 0 {
			others.Add(1)
		}
		all.Add(1)
		go func() {
			defer all.Done()
			if i == 0 && len(cs) > 1 {
				<-start
			}
			errs[i] = consumer(c, 3*i, &got[i], seen)
			if i > 0 {
				others.Done()
			}
		}()
	}
	if len(cs) > 1 {
		go func() {
			defer close(start)
			done := make(chan struct{})
			go func() { others.Wait(); close(done) }()
			select {
			case <-seen.reached:
			case <-done:
			}
		}()
	}
	all.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("cursor %d: %v", i, err)
		}
	}
	return got
}

// TestCursorSetStableSortIsSerial checks ML.NET's property: every cursor's
// items, put together and stable-sorted by batch, are the serial stream;
// each cursor's batches never decrease and no batch is in two cursors.
func TestCursorSetStableSortIsSerial(t *testing.T) {
	ref := testutil.Items[int64](t, uneven(1, 1))
	if len(ref) < 15000 {
		t.Fatalf("serial run has %d items", len(ref))
	}
	for _, shape := range []struct{ w, last int }{{1, 1}, {3, 3}, {4, 1}, {2, 4}} {
		for _, n := range cursorCounts {
			testutil.CheckGoroutines(t)
			s, err := flow.Cursors[int64](context.Background(), uneven(shape.w, shape.last), n)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			owner := map[int64]int{}
			var all []flow.Item[int64]
			for i, items := range got {
				for k, it := range items {
					if k > 0 && it.Part < items[k-1].Part {
						t.Fatalf("%v n=%d: cursor %d: partition %d after %d", shape, n, i, it.Part, items[k-1].Part)
					}
					if o, ok := owner[it.Part]; ok && o != i {
						t.Fatalf("%v n=%d: partition %d in cursors %d and %d", shape, n, it.Part, o, i)
					}
					owner[it.Part] = i
				}
				all = append(all, items...)
			}
			slices.SortStableFunc(all, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
			if !slices.Equal(all, ref) {
				t.Fatalf("%v n=%d: %d items sorted by batch differ from the serial %d", shape, n, len(all), len(ref))
			}
			if n == 1 && !slices.Equal(got[0], ref) {
				t.Fatalf("%v: one cursor is not the serial stream", shape)
			}
			used := 0
			for _, items := range got {
				if len(items) > 0 {
					used++
				}
			}
			t.Logf("%v n=%d: %d cursors got items", shape, n, used)
			for i, c := range s.Cursors() {
				for range 3 {
					for it, err := range c.All() {
						t.Fatalf("%v n=%d: ended cursor %d: All gives %+v, %v", shape, n, i, it, err)
					}
				}
				c.Close()
			}
		}
	}
}

func TestCursorSetConsolidate(t *testing.T) {
	ref := testutil.Items[int64](t, uneven(1, 1))
	for _, n := range cursorCounts {
		for _, last := range []int{1, 3} {
			testutil.CheckGoroutines(t)
			s, err := flow.Cursors[int64](context.Background(), uneven(2, last), n)
			if err != nil {
				t.Fatal(err)
			}
			var got []flow.Item[int64]
			for it, err := range s.Consolidate() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, it)
			}
			if !slices.Equal(got, ref) {
				t.Fatalf("n=%d last=%d: consolidated %d items differ from the serial %d", n, last, len(got), len(ref))
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Leaving the loop early closes the set.
	testutil.CheckGoroutines(t)
	s, err := flow.Cursors[int64](context.Background(), uneven(2, 2), 3)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for it, err := range s.Consolidate() {
		if err != nil || it != ref[k] {
			t.Fatalf("item %d: %v, %v; want %v", k, it, err, ref[k])
		}
		if k++; k == 777 {
			break
		}
	}
	for _, c := range s.Cursors() {
		for _, err := range c.All() {
			if err == nil {
				t.Fatal("a cursor of a closed set yields items")
			}
		}
	}
}

func TestCursorSetCancel(t *testing.T) {
	for _, last := range []int{1, 3} {
		for _, n := range []int{1, 3} {
			testutil.CheckGoroutines(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, err := flow.Cursors[int64](ctx, endless(last), n)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make([]error, n)
			var seen atomic.Int64
			for i, c := range s.Cursors() {
				wg.Go(func() {
					for _, err := range c.All() {
						if err != nil {
							errs[i] = err
							break
						}
						if seen.Add(1) == 5000 {
							cancel()
						}
					}
				})
			}
			wg.Wait()
			for i, err := range errs {
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("last=%d n=%d: cursor %d: error %v, want context.Canceled", last, n, i, err)
				}
			}
			if err := s.Close(); !errors.Is(err, context.Canceled) {
				t.Fatalf("last=%d n=%d: Close = %v, want context.Canceled", last, n, err)
			}
		}
	}
}

func endless(last int) *flow.Pipeline {
	return flow.From(sources.Generate(-1, func(i int64) (int64, error) { return i, nil })).
		Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(last)
}

// One consumer fails and closes the set: the others stop with
// ErrCursorSetClosed and nothing keeps running.
func TestCursorSetConsumerError(t *testing.T) {
	for _, last := range []int{1, 2} {
		testutil.CheckGoroutines(t)
		s, err := flow.Cursors[int64](context.Background(), endless(last), 3)
		if err != nil {
			t.Fatal(err)
		}
		errBody := errors.New("consumer failed")
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i, c := range s.Cursors() {
			wg.Go(func() {
				k := 0
				for _, err := range c.All() {
					if err != nil {
						if errs[i] == nil {
							errs[i] = err
						}
						break
					}
					if k++; i == 1 && k == 3000 {
						errs[i] = errBody
						if err := s.Close(); err != nil {
							t.Errorf("Close = %v", err)
						}
					}
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			want := closedOr(i == 1, errBody)
			if !errors.Is(err, want) {
				t.Fatalf("last=%d: cursor %d: %v, want %v", last, i, err, want)
			}
		}
	}
}

func closedOr(own bool, err error) error {
	if own {
		return err
	}
	return flow.ErrCursorSetClosed
}

// A consumer that stops early closes its cursor; the others read the rest.
func TestCursorStopsEarlyOthersContinue(t *testing.T) {
	ref := testutil.Items[int64](t, uneven(1, 1))
	byBatch := map[int64][]flow.Item[int64]{}
	for _, it := range ref {
		byBatch[it.Part] = append(byBatch[it.Part], it)
	}
	for _, last := range []int{1, 3} {
		testutil.CheckGoroutines(t)
		s, err := flow.Cursors[int64](context.Background(), uneven(2, last), 3)
		if err != nil {
			t.Fatal(err)
		}
		cs := s.Cursors()
		var stopped []flow.Item[int64]
		for it, err := range cs[0].All() {
			if err != nil {
				t.Fatal(err)
			}
			if stopped = append(stopped, it); len(stopped) == 100 {
				break
			}
		}
		for it, err := range cs[0].All() {
			t.Fatalf("a closed cursor yields %+v, %v", it, err)
		}
		var rest [][]flow.Item[int64]
		var wg sync.WaitGroup
		rest = make([][]flow.Item[int64], 2)
		for i, c := range cs[1:] {
			wg.Go(func() {
				for it, err := range c.All() {
					if err != nil {
						t.Error(err)
						return
					}
					rest[i] = append(rest[i], it)
				}
			})
		}
		wg.Wait()
		// The stopped cursor's partitions are lost past what it read; every
		// other partition arrives whole.
		dropped := map[int64]bool{}
		for _, it := range stopped {
			dropped[it.Part] = true
		}
		got := map[int64][]flow.Item[int64]{}
		for _, items := range rest {
			for _, it := range items {
				if dropped[it.Part] {
					t.Fatalf("last=%d: partition %d read by the stopped cursor reached another", last, it.Part)
				}
				got[it.Part] = append(got[it.Part], it)
			}
		}
		for b, want := range byBatch {
			if dropped[b] {
				if !slices.Equal(want[:countBatch(stopped, b)], filterBatch(stopped, b)) {
					t.Fatalf("last=%d: the stopped cursor's partition %d differs", last, b)
				}
				continue
			}
			if !slices.Equal(got[b], want) {
				t.Fatalf("last=%d: partition %d: %d items, want %d", last, b, len(got[b]), len(want))
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func countBatch(items []flow.Item[int64], b int64) int { return len(filterBatch(items, b)) }

func filterBatch(items []flow.Item[int64], b int64) []flow.Item[int64] {
	var out []flow.Item[int64]
	for _, it := range items {
		if it.Part == b {
			out = append(out, it)
		}
	}
	return out
}

// A stage error reaches the cursor that holds its partition, and Close
// returns it. Another cursor reports it too, or, if it found no partition
// left to take while the failing one was still being read, nil (as
// Cursor.All says): under the race detector that happens now and then.
func TestCursorSetStageError(t *testing.T) {
	for _, last := range []int{1, 3} {
		testutil.CheckGoroutines(t)
		p := flow.From(sources.Slice(ints(20000), sources.PartitionItems(100))).
			Via(operators.Map(func(v int64) (int64, error) {
				if v == 12345 {
					return 0, errBad
				}
				return v, nil
			})).Parallel(last)
		s, err := flow.Cursors[int64](context.Background(), p, 2)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var failed atomic.Int32
		for i, c := range s.Cursors() {
			wg.Go(func() {
				var cerr error
				for _, err := range c.All() {
					if err != nil {
						cerr = err
					}
				}
				var se *flow.StageError
				switch {
				case cerr == nil: // it reached the end of the stream first
				case !errors.As(cerr, &se) || !errors.Is(cerr, errBad):
					t.Errorf("last=%d: cursor %d: error %v, want the stage error", last, i, cerr)
				default:
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		if failed.Load() == 0 {
			t.Errorf("last=%d: no cursor reported the stage error", last)
		}
		if err := s.Close(); !errors.Is(err, errBad) {
			t.Fatalf("last=%d: Close = %v", last, err)
		}
	}
}

func TestCursorsRefuses(t *testing.T) {
	if _, err := flow.Cursors[int64](context.Background(), endless(1), 0); err == nil {
		t.Fatal("Cursors(0) did not fail")
	}
	if _, err := flow.Cursors[string](context.Background(), endless(1), 2); err == nil {
		t.Fatal("Cursors of the wrong type did not fail")
	}
}

// Closing the last open cursor before the stream's end stops the run:
// nothing else reads it, so Close must not wait for its end.
func TestClosingTheLastCursorStopsTheRun(t *testing.T) {
	for _, par := range []int{1, 4} {
		for _, n := range []int{1, 3} {
			testutil.Synctest(t, func(t *testing.T) {
				p := flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(10))).
					Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par)
				s, err := flow.Cursors[int64](context.Background(), p, n)
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for _, c := range s.Cursors() {
					for it, err := range c.All() {
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, it.Value)
						break
					}
				}
				if len(got) != n {
					t.Fatalf("parallel %d, %d cursors: %d items, want one per cursor", par, n, len(got))
				}
				if err := s.Close(); err != nil {
					t.Fatalf("parallel %d, %d cursors: Close: %v", par, n, err)
				}
			})
		}
	}
}

// A source that reads other pipelines (Concat, Mix, a Cache's first pass)
// reads them through cursor sets of its own. A stage that stops the
// stream (Take) ends the run without error, whether or not a goroutine
// (Prefetch, a parallel stage) stands between it and the source.
func TestStopDownstreamOfNestedRuns(t *testing.T) {
	gen := func() *flow.Pipeline {
		return flow.From(sources.Generate(5000, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(10)))
	}
	for name, src := range map[string]func() flow.Source[int64]{
		"concat": func() flow.Source[int64] { return operators.Concat[int64](gen(), gen()) },
		"mix": func() flow.Source[int64] {
			return operators.Mix[int64]([]*flow.Pipeline{gen(), gen()}, []float64{1, 1})
		},
		"cache": func() flow.Source[int64] { return operators.Cache[int64](gen()) },
	} {
		for between, shape := range map[string]func(*flow.Pipeline) *flow.Pipeline{
			"prefetch": func(p *flow.Pipeline) *flow.Pipeline { return p.Via(operators.Prefetch[int64](1)) },
			"parallel": func(p *flow.Pipeline) *flow.Pipeline {
				return p.Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(2)
			},
		} {
			for range 5 {
				var n int64
				err := shape(flow.From(src())).Via(operators.Take[int64](3)).To(sinks.Count[int64](&n)).Run(context.Background())
				if err != nil || n != 3 {
					t.Fatalf("%s, %s, Take(3): %d items, error %v; want 3 and no error", name, between, n, err)
				}
			}
		}
	}
}

// Consolidate ends at a stage's error, as Items does: it does not go on
// to the later partitions that other cursors hold.
func TestCursorSetConsolidateStopsAtStageError(t *testing.T) {
	build := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(ints(120), sources.PartitionItems(3), sources.ChunkSize(1))).
			Via(operators.Map(func(v int64) (int64, error) { return v*3 + 1, nil })).Parallel(par).
			Via(operators.Map(func(v int64) (int64, error) {
				if v == 100 { // the first row of partition 11
					return 0, errBad
				}
				return v, nil
			})).Parallel(par + 1)
	}
	ref, refErr := collectItems[int64](build(1))
	if len(ref) != 33 || !errors.Is(refErr, errBad) {
		t.Fatalf("serial run: %d items, %v; want 33 and the stage's error", len(ref), refErr)
	}
	for range 20 {
		testutil.CheckGoroutines(t)
		s, err := flow.Cursors[int64](context.Background(), build(2), 4)
		if err != nil {
			t.Fatal(err)
		}
		var got []flow.Item[int64]
		var errs []error
		for it, err := range s.Consolidate() {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			got = append(got, it)
		}
		if !slices.Equal(got, ref) || len(errs) != 1 || errs[0].Error() != refErr.Error() {
			t.Fatalf("Consolidate: %d items (partitions %v), errors %v; want the serial %d items and %v", len(got), partsOf(got), errs, len(ref), refErr)
		}
		if err := s.Close(); !errors.Is(err, errBad) {
			t.Fatalf("Close = %v", err)
		}
	}
}
