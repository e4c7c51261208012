package flow_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

var parallelisms = []int{1, 2, 3, 4, 8}

func ints(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	return v
}

// mixed is a pipeline with every kind of stage, parallel at n.
func mixed(n int) *flow.Pipeline {
	return flow.From(sources.Slice(ints(20000), sources.PartitionItems(700), sources.ChunkSize(64))).
		Via(operators.Filter(func(v int64) bool { return v%3 != 0 && (v/700)%5 != 2 })).Parallel(n).
		Via(operators.FlatMap(func(v int64) ([]int64, error) { return make([]int64, v%4), nil })).Parallel(n).
		Via(operators.Map(func(v int64) (string, error) { return strings.Repeat("x", int(v%5)), nil })).Parallel(n + 1)
}

func TestSerialEqualsParallel(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ref := testutil.Items[string](t, mixed(1))
		if len(ref) < 10000 {
			t.Fatalf("reference run has %d items; the pipeline should keep more", len(ref))
		}
		seen := map[rowid.ID]bool{}
		for i, it := range ref {
			if seen[it.ID] {
				t.Fatalf("item %d: duplicate ID %v", i, it.ID)
			}
			seen[it.ID] = true
			if i > 0 && it.Part < ref[i-1].Part {
				t.Fatalf("item %d: partition %d after partition %d", i, it.Part, ref[i-1].Part)
			}
		}
		for _, n := range parallelisms {
			for range 3 {
				if got := testutil.Items[string](t, mixed(n)); !slices.Equal(got, ref) {
					t.Fatalf("parallelism %d: %d items differ from the serial %d", n, len(got), len(ref))
				}
			}
		}
	})
}

func TestUnorderedKeepsItems(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ref := testutil.Items[string](t, mixed(1))
		got := testutil.Items[string](t, mixed(4).Unordered())
		key := func(a, b flow.Item[string]) int { return a.ID.Compare(b.ID) }
		slices.SortFunc(ref, key)
		slices.SortFunc(got, key)
		if !slices.Equal(got, ref) {
			t.Fatalf("unordered run has %d items, serial %d, or they differ", len(got), len(ref))
		}
	})
}

func TestRunTwiceSameOutput(t *testing.T) {
	var a, b []flow.Item[string]
	p := mixed(3)
	if err := p.To(sinks.Collect(&a)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.To(sinks.Collect(&b)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("two runs differ: %d and %d items", len(a), len(b))
	}
}

func TestEarlyBreakLeavesNoGoroutine(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		for _, n := range parallelisms {
			got := 0
			for _, err := range flow.Items[string](context.Background(), mixed(n)) {
				if err != nil {
					t.Fatal(err)
				}
				if got++; got == 1234 {
					break
				}
			}
			if got != 1234 {
				t.Fatalf("parallelism %d: got %d items before break", n, got)
			}
		}
	})
}

func TestCancelMidRun(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		for _, n := range parallelisms {
			ctx, cancel := context.WithCancel(context.Background())
			seen := 0
			err := flow.From(sources.Generate(-1, func(i int64) (int64, error) { return i, nil })).
				Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(n).
				To(sinks.ForEach(func(flow.Item[int64]) error {
					if seen++; seen == 5000 {
						cancel()
					}
					return nil
				})).Run(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("parallelism %d: Run = %v, want context.Canceled", n, err)
			}
		}
	})
}

var errBad = errors.New("bad value")

func TestStageErrorNamesStageBatchAndRow(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		for _, n := range parallelisms {
			p := flow.From(sources.Slice(ints(10000), sources.PartitionItems(100), sources.Named("numbers"))).
				Via(operators.Map(func(v int64) (int64, error) {
					if v == 4321 {
						return 0, errBad
					}
					return v, nil
				})).Parallel(n)
			var got int64
			err := p.To(sinks.Count[int64](&got)).Run(context.Background())
			var se *flow.StageError
			if !errors.As(err, &se) || !errors.Is(err, errBad) {
				t.Fatalf("parallelism %d: Run = %v, want a StageError wrapping errBad", n, err)
			}
			want := rowid.Ordinal(4321).Combine(rowid.FromString("numbers"))
			if se.Stage != "map" || !se.HasID || se.Part != 43 || se.ID != want {
				t.Fatalf("parallelism %d: error %+v, want stage map, batch 43, ID %v", n, se, want)
			}
			if got != 0 {
				t.Fatalf("parallelism %d: count %d stored by a failed run", n, got)
			}
		}
	})
}

func TestPanicBecomesError(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		cases := map[string]func(n int) *flow.Pipeline{
			"map": func(n int) *flow.Pipeline {
				return flow.From(sources.Slice(ints(5000), sources.PartitionItems(100))).
					Via(operators.Map(func(v int64) (int64, error) {
						if v == 777 {
							panic("boom")
						}
						return v, nil
					})).Parallel(n)
			},
			"filter": func(n int) *flow.Pipeline {
				return flow.From(sources.Slice(ints(5000), sources.PartitionItems(100))).
					Via(operators.Filter(func(v int64) bool {
						if v == 777 {
							panic("boom")
						}
						return true
					})).Parallel(n)
			},
			"generate": func(n int) *flow.Pipeline {
				return flow.From(sources.Generate(5000, func(i int64) (int64, error) {
					if i == 777 {
						panic("boom")
					}
					return i, nil
				}, sources.PartitionItems(100))).Parallel(n)
			},
		}
		for name, build := range cases {
			for _, n := range parallelisms {
				var got []int64
				err := build(n).To(sinks.CollectValues(&got)).Run(context.Background())
				var pe *flow.PanicError
				var se *flow.StageError
				if !errors.As(err, &pe) || !errors.As(err, &se) || pe.Value != "boom" || len(pe.Stack) == 0 {
					t.Fatalf("%s at %d: Run = %v, want a StageError with the panic", name, n, err)
				}
				if se.Part != 7 {
					t.Fatalf("%s at %d: partition %d, want 7", name, n, se.Part)
				}
			}
		}
	})
}

func TestSinkPanicAndError(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		err := flow.From(sources.Slice(ints(100))).
			To(sinks.ForEach(func(it flow.Item[int64]) error {
				if it.Value == 50 {
					panic("sink boom")
				}
				return nil
			})).Run(context.Background())
		var pe *flow.PanicError
		if !errors.As(err, &pe) || pe.Value != "sink boom" {
			t.Fatalf("Run = %v, want the sink's panic", err)
		}
	})
}

func TestTakeStopsAnEndlessSource(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		for _, n := range parallelisms {
			p := flow.From(sources.Generate(-1, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(64))).
				Via(operators.Map(func(v int64) (int64, error) { return v * 2, nil })).Parallel(n).
				Via(operators.Take[int64](1000)).
				Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(n)
			got := testutil.Items[int64](t, p)
			if len(got) != 1000 {
				t.Fatalf("parallelism %d: %d items, want 1000", n, len(got))
			}
			for i, it := range got {
				if it.Value != int64(2*i+1) || it.Part != int64(i/64) {
					t.Fatalf("parallelism %d: item %d = %+v", n, i, it)
				}
			}
		}
	})
}

func TestEmptyPartitionsStillClose(t *testing.T) {
	// Every partition but the last is filtered out entirely, and the
	// stages after the filter run in parallel: the merge must not wait.
	for _, n := range parallelisms {
		p := flow.From(sources.Slice(ints(10000), sources.PartitionItems(10))).
			Via(operators.Filter(func(v int64) bool { return v >= 9995 })).Parallel(n).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(n + 1)
		var got []int64
		for c, err := range flow.Chunks[int64](context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, c.Values...)
		}
		if !slices.Equal(got, []int64{9995, 9996, 9997, 9998, 9999}) {
			t.Fatalf("parallelism %d: got %v", n, got)
		}
	}
}

func TestEndMarkersOnePerPartition(t *testing.T) {
	for _, n := range parallelisms {
		ends := map[int64]int{}
		for c, err := range flow.Chunks[string](context.Background(), mixed(n)) {
			if err != nil {
				t.Fatal(err)
			}
			if c.End {
				ends[c.Part]++
			}
		}
		if len(ends) != 29 { // 20000 values in partitions of 700
			t.Fatalf("parallelism %d: End chunks for %d partitions, want 29", n, len(ends))
		}
		for b, k := range ends {
			if k != 1 {
				t.Fatalf("parallelism %d: partition %d has %d End chunks", n, b, k)
			}
		}
	}
}

func TestBuildErrors(t *testing.T) {
	src := flow.From(sources.Slice([]int64{1, 2, 3}))
	cases := []struct {
		name string
		err  error
		want []string
	}{
		{"types", src.Via(operators.Map(func(s string) (int, error) { return len(s), nil })).Err(),
			[]string{`"slice"`, "int64", `"map"`, "string"}},
		{"serial", src.Via(operators.Take[int64](2)).Parallel(2).Err(),
			[]string{`"take"`, "cannot run in parallel", "counts values across partitions"}},
		{"workers", src.Parallel(0).Err(), []string{"at least 1 worker"}},
		{"too many workers", src.Parallel(math.MaxInt).Err(), []string{"Parallel(9223372036854775807)", "at most 65536 workers"}},
		{"sink type", src.To(sinks.Count[string](new(int64))).Err(), []string{"int64", `"count"`, "string"}},
		{"no sink", src.Run(context.Background()), []string{"no sink"}},
		{"option", flow.From(sources.Slice([]int{1}, sources.PartitionItems(0))).Err(), []string{"PartitionItems(0)"}},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(c.err.Error(), w) {
				t.Errorf("%s: error %q does not mention %s", c.name, c.err, w)
			}
		}
	}
	for _, err := range flow.Items[string](context.Background(), src) {
		if err == nil || !strings.Contains(err.Error(), "iterator takes string") {
			t.Fatalf("Items of the wrong type: %v", err)
		}
	}
}

func TestWindowBoundsReadAhead(t *testing.T) {
	// Partition 0 blocks in its worker; the source must not read more than
	// the window of partitions ahead of it.
	testutil.Synctest(t, func(t *testing.T) {
		for _, n := range []int{2, 4} {
			release := make(chan struct{})
			var maxRead atomic.Int64
			src := sources.Generate(-1, func(i int64) (int64, error) {
				if int64(i) > maxRead.Load() {
					maxRead.Store(i)
				}
				return i, nil
			}, sources.PartitionItems(10))
			p := flow.From(src).
				Via(operators.Map(func(v int64) (int64, error) {
					if v == 0 {
						<-release
					}
					return v, nil
				})).Parallel(n).Via(operators.Take[int64](10000))
			done := make(chan error)
			go func() {
				var c int64
				done <- p.To(sinks.Count[int64](&c)).Run(context.Background())
			}()
			// When every goroutine is blocked, the source is stuck. The
			// window is 2n partitions queued plus n being worked on, plus
			// the one the source is pushing.
			synctest.Wait()
			bound := int64((3*n + 2) * 10)
			got := maxRead.Load()
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if got > bound || got < int64(n*10) {
				t.Fatalf("parallelism %d: source read up to %d while partition 0 was blocked; want at least the %d workers' partitions and at most %d", n, got, n, bound)
			}
		}
	})
}

func TestAtEndRunsOncePerRun(t *testing.T) {
	for _, n := range []int{1, 3} {
		var ends, reads atomic.Int64
		src := sources.Generate(1000, func(i int64) (int64, error) { return i, nil }, sources.PartitionItems(100))
		p := flow.From(atEndSource{src, &ends, &reads}).Parallel(n)
		for range 2 {
			got := testutil.Items[int64](t, p)
			if len(got) != 1000 {
				t.Fatalf("%d items", len(got))
			}
		}
		if ends.Load() != 2 || reads.Load() != 20 {
			t.Fatalf("parallelism %d: AtEnd ran %d times for 2 runs; %d partitions read", n, ends.Load(), reads.Load())
		}
	}
	if flow.AtEnd(context.Background(), func() {}) {
		t.Fatal("AtEnd accepted a context that belongs to no run")
	}
}

// atEndSource counts partitions read and runs ended.
type atEndSource struct {
	flow.Source[int64]
	ends, reads *atomic.Int64
}

func (s atEndSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	if !flow.AtEnd(ctx, func() { s.ends.Add(1) }) {
		panic("no run context")
	}
	return func(yield func(flow.Partition[int64], error) bool) {
		for p, err := range s.Source.Partitions(ctx, env) {
			read := p.Read
			p.Read = func(ctx context.Context, out flow.Emitter[int64]) error {
				s.reads.Add(1)
				return read(ctx, out)
			}
			if !yield(p, err) {
				return
			}
		}
	}
}

func TestUnorderedKeepsPartitionsWhole(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		// Partition 0 cannot finish until the stage after the merge has seen
		// partition 1 end, so an unordered merge must deliver partition 1
		// first, whole, then partition 0, whole.
		batch1Done := make(chan struct{})
		p := flow.From(sources.Slice(ints(8), sources.PartitionItems(4), sources.ChunkSize(1))).
			Via(operators.Map(func(v int64) (int64, error) {
				if v == 0 {
					<-batch1Done
				}
				return v, nil
			})).Parallel(2).Unordered().
			Via(operators.Map(func(v int64) (int64, error) {
				if v == 7 {
					close(batch1Done)
				}
				return v, nil
			})).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(3)
		var batches []int64
		ends := map[int64]int{}
		for c, err := range flow.Chunks[int64](context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			for range c.Values {
				batches = append(batches, c.Part)
			}
			if c.End {
				ends[c.Part]++
			}
		}
		if want := []int64{1, 1, 1, 1, 0, 0, 0, 0}; !slices.Equal(batches, want) {
			t.Fatalf("batches in stream order %v, want %v", batches, want)
		}
		if ends[0] != 1 || ends[1] != 1 {
			t.Fatalf("End chunks per batch %v, want one each", ends)
		}
	})
}

func TestUnorderedLargePartitions(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		// Partitions of 500 one-value chunks overflow the per-partition
		// buffer; the merge must still make progress.
		p := flow.From(sources.Slice(ints(5000), sources.PartitionItems(500), sources.ChunkSize(1))).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(4).Unordered()
		got := testutil.Items[int64](t, p)
		slices.SortFunc(got, func(a, b flow.Item[int64]) int { return int(a.Value - b.Value) })
		for i, it := range got {
			if it.Value != int64(i) || it.Part != int64(i/500) {
				t.Fatalf("item %d = %+v", i, it)
			}
		}
		if len(got) != 5000 {
			t.Fatalf("%d items", len(got))
		}
	})
}

func TestSinkOptionErrorAtBuild(t *testing.T) {
	p := flow.From(sources.Slice(ints(10))).To(shards.Parquet[int64](t.TempDir(), shards.Writers(0)))
	if p.Err() == nil || !strings.Contains(p.Err().Error(), "Writers(0)") {
		t.Fatalf("Err() = %v, want the sink's bad option", p.Err())
	}
}

func TestBudgetBoundsChunksBehindTheMerge(t *testing.T) {
	// Partition 0 blocks in its worker. The other worker may run ahead,
	// but the chunks waiting behind partition 0 stay within the group's
	// budget (one 64-chunk buffer per worker), far fewer than the five
	// partitions of 60 chunks the window alone would let through.
	testutil.Synctest(t, func(t *testing.T) {
		const bound = 2*64 + 60 + 2 // the budget, one partition in hand, slack
		got := rowsWhileBlocked(t, 60, 1, func(v int64) int64 { return v })
		if got < 60 {
			t.Fatalf("%d values processed while partition 0 was blocked: the other worker did not run ahead", got)
		}
		if got > bound {
			t.Fatalf("%d values processed while partition 0 was blocked; the budget allows %d", got, bound)
		}
	})
}

func TestBudgetBoundsBytesBehindTheMerge(t *testing.T) {
	// As TestBudgetBoundsChunksBehindTheMerge, with rows of 16 KiB in
	// chunks of 8: a chunk takes 5 tokens of 32 KiB (its bytes and slice
	// headers), so the 128 tokens of two workers let about 25 chunks wait
	// behind partition 0, where a budget counting chunks let 128 wait.
	testutil.Synctest(t, func(t *testing.T) {
		const bound = (2*64/5 + 2) * 8 // the chunks the tokens allow, the one waiting for tokens, slack
		got := rowsWhileBlocked(t, 400, 8, func(int64) []byte { return make([]byte, 16<<10) })
		if got < 8*8 {
			t.Fatalf("%d rows processed while partition 0 was blocked: the other worker did not run ahead", got)
		}
		if got > bound {
			t.Fatalf("%d rows processed while partition 0 was blocked; the budget allows %d", got, bound)
		}
	})
}

// rowsWhileBlocked runs, in a synctest bubble, a source of partitions of
// part rows in chunks of chunk, mapped by f on two workers, whose row 0
// blocks its worker. It returns how many rows were mapped once every
// goroutine of the run is blocked, then lets row 0 through and checks
// that the run ends without error.
func rowsWhileBlocked[T any](t *testing.T, part, chunk int, f func(int64) T) int64 {
	t.Helper()
	release := make(chan struct{})
	var processed atomic.Int64
	p := flow.From(sources.Generate(-1, func(i int64) (int64, error) { return i, nil },
		sources.PartitionItems(part), sources.ChunkSize(chunk))).
		Via(operators.Map(func(v int64) (T, error) {
			if v == 0 {
				<-release
			}
			processed.Add(1)
			return f(v), nil
		})).Parallel(2).Via(operators.Take[T](100000))
	done := make(chan error)
	go func() {
		var c int64
		done <- p.To(sinks.Count[T](&c)).Run(context.Background())
	}()
	synctest.Wait() // every goroutine of the run is blocked
	got := processed.Load()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRoomBoundsBytesOfThePartitionMerged(t *testing.T) {
	// One partition, whose rows of 16 KiB in chunks of 8 are made on two
	// workers and read by a sink that blocks at its first row. A chunk
	// takes 5 weight units (see TestBudgetBoundsBytesBehindTheMerge), so
	// the partition's channel holds the 2*64/5 = 25 chunks that the
	// budget of two workers weighs, where counting chunks let it hold 64
	// (512 rows, 8 MiB).
	testutil.Synctest(t, func(t *testing.T) {
		const bound = (2*64/5 + 3) * 8 // the room, the chunks the sink and a worker hold, slack
		release := make(chan struct{})
		first := true
		got := madeWhileBlocked(t, release, func(p *flow.Pipeline, big func(int64) ([]byte, error)) *flow.Pipeline {
			return p.Via(operators.Map(big)).Parallel(2).Via(operators.Map(func(b []byte) ([]byte, error) {
				if first {
					first = false
					<-release
				}
				return b, nil
			}))
		})
		if got > bound {
			t.Fatalf("%d rows made while the sink was blocked; the room allows %d", got, bound)
		}
	})
}

func TestRoomBoundsBytesSentToAWorker(t *testing.T) {
	// The rows of 16 KiB are made by a serial stage and passed on by a
	// parallel one whose workers block: the channel of the partition a
	// worker reads holds 25 chunks of them, where counting chunks let it
	// hold 64.
	testutil.Synctest(t, func(t *testing.T) {
		const bound = (2*64/5 + 3) * 8 // the room, the chunks a worker and the serial stage hold, slack
		release := make(chan struct{})
		got := madeWhileBlocked(t, release, func(p *flow.Pipeline, big func(int64) ([]byte, error)) *flow.Pipeline {
			return p.Via(operators.Map(big)).Via(operators.Map(func(b []byte) ([]byte, error) {
				<-release
				return b, nil
			})).Parallel(2)
		})
		if got > bound {
			t.Fatalf("%d rows made while the workers were blocked; the room allows %d", got, bound)
		}
	})
}

// madeWhileBlocked runs, in a synctest bubble, shape over one partition
// of 2000 rows in chunks of 8 into a sink; shape makes rows of 16 KiB
// with big, and something in it blocks until release is closed. It
// returns the rows big had made once every goroutine of the run was
// blocked, then closes release and checks that every row arrives.
func madeWhileBlocked(t *testing.T, release chan struct{}, shape func(p *flow.Pipeline, big func(int64) ([]byte, error)) *flow.Pipeline) int64 {
	t.Helper()
	const n = 2000
	var made atomic.Int64
	big := func(int64) ([]byte, error) {
		made.Add(1)
		return make([]byte, 16<<10), nil
	}
	p := shape(flow.From(sources.Generate(n, func(i int64) (int64, error) { return i, nil },
		sources.PartitionItems(n), sources.ChunkSize(8))), big)
	done := make(chan error)
	var count int64
	go func() { done <- p.To(sinks.Count[[]byte](&count)).Run(context.Background()) }()
	synctest.Wait() // every goroutine of the run is blocked
	got := made.Load()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if count != n {
		t.Fatalf("%d rows arrived, want %d", count, n)
	}
	return got
}

// TestOutType: OutType is the value type of the last stage: the source's
// after From, each Via's output, unchanged by Parallel, To and a stage
// that did not fit.
func TestOutType(t *testing.T) {
	src := flow.From(sources.Slice([]int{1, 2}))
	toText := operators.Map(func(v int) (string, error) { return fmt.Sprint(v), nil })
	text := src.Via(toText).Parallel(2)
	batched := text.Via(operators.Batch[string](2))
	misfit := text.Via(operators.Map(func(v int64) (int64, error) { return v, nil }))
	cases := []struct {
		name string
		p    *flow.Pipeline
		want reflect.Type
	}{
		{"From", src, reflect.TypeFor[int]()},
		{"Via(Map)", text, reflect.TypeFor[string]()},
		{"Via(Batch)", batched, reflect.TypeFor[operators.Rows[string]]()},
		{"To", text.To(sinks.CollectValues(new([]string))), reflect.TypeFor[string]()},
		{"a stage that did not fit", misfit, reflect.TypeFor[string]()},
	}
	for _, c := range cases {
		if got := flow.OutType(c.p); got != c.want {
			t.Errorf("%s: OutType() = %v, want %v", c.name, got, c.want)
		}
	}
	if misfit.Err() == nil {
		t.Fatal("a Map of int64 after a stage producing string was accepted")
	}
	if flow.OutType(src) != reflect.TypeFor[int]() {
		t.Fatal("building on a pipeline changed its OutType")
	}
}
