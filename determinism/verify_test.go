package determinism_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

func counting(n int64, opts ...sources.SliceOption) flow.Source[int64] {
	return sources.Generate(n, func(i int64) (int64, error) { return i, nil }, opts...)
}

func TestVerifyPasses(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var calls []int
	build := func(n int) *flow.Pipeline {
		mu.Lock()
		calls = append(calls, n)
		mu.Unlock()
		return flow.From(counting(20000, sources.PartitionItems(300), sources.ChunkSize(64))).Parallel(n).
			Via(operators.Filter(func(v int64) bool { return v%5 != 0 })).Parallel(n).
			Via(operators.FlatMap(func(v int64) ([]string, error) {
				return slices.Repeat([]string{fmt.Sprint(v)}, int(v%3)), nil
			})).Parallel(n)
	}
	if err := determinism.Verify[string](ctx, build, determinism.Runs(3), determinism.Parallelisms(2, 5)); err != nil {
		t.Fatal(err)
	}
	// Each of the 3 rounds builds the reference and one run per parallelism.
	slices.Sort(calls)
	if want := []int{1, 1, 1, 2, 2, 2, 5, 5, 5}; !slices.Equal(calls, want) {
		t.Errorf("build was called with %v, want %v", calls, want)
	}
	if err := determinism.Verify[int64](ctx, func(int) *flow.Pipeline { return flow.From(counting(0)) }); err != nil {
		t.Errorf("empty stream: %v", err)
	}
}

// divergent builds a pipeline of 0, 1, … n-1 that, at parallelism p > 1,
// has change applied to it.
func divergent(n int64, change func(p int, src *[]sources.SliceOption, f *func(int64) int64)) func(int) *flow.Pipeline {
	return func(p int) *flow.Pipeline {
		opts := []sources.SliceOption{sources.PartitionItems(100), sources.ChunkSize(16)}
		f := func(i int64) int64 { return i }
		if p > 1 {
			change(p, &opts, &f)
		}
		return flow.From(sources.Generate(n, func(i int64) (int64, error) { return f(i), nil }, opts...)).Parallel(p)
	}
}

func verifyDivergence(t *testing.T, build func(int) *flow.Pipeline) *determinism.Divergence {
	t.Helper()
	err := determinism.Verify[int64](context.Background(), build)
	var d *determinism.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("Verify = %v, want a *Divergence", err)
	}
	return d
}

func TestVerifyValueDivergence(t *testing.T) {
	d := verifyDivergence(t, divergent(1000, func(p int, _ *[]sources.SliceOption, f *func(int64) int64) {
		*f = func(i int64) int64 {
			if i == 437 {
				return int64(-p)
			}
			return i
		}
	}))
	base := rowid.FromString("generate")
	id := rowid.Ordinal(437).Combine(base)
	want := determinism.Divergence{Parallelism: 2, Round: 1, Position: 437,
		Reference: determinism.Observation{Part: 4, ID: id, Value: int64(437)},
		Candidate: determinism.Observation{Part: 4, ID: id, Value: int64(-2)}}
	checkDivergence(t, d, want)
	msg := d.Error()
	for _, s := range []string{"item 437 differs (value)", "parallelism 1 has partition 4, row " + id.String() + ", value 437",
		"parallelism 2 (round 1) has partition 4, row " + id.String() + ", value -2"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not contain %q", msg, s)
		}
	}
}

func checkDivergence(t *testing.T, got *determinism.Divergence, want determinism.Divergence) {
	t.Helper()
	if got.Parallelism != want.Parallelism || got.Round != want.Round || got.Position != want.Position ||
		got.Reference != want.Reference || got.Candidate != want.Candidate {
		t.Errorf("divergence\n%+v\nwant\n%+v", *got, want)
	}
}

func TestVerifyBatchAndIDDivergence(t *testing.T) {
	// Another partition size renumbers batches from item 50 on.
	d := verifyDivergence(t, divergent(1000, func(_ int, opts *[]sources.SliceOption, _ *func(int64) int64) {
		*opts = []sources.SliceOption{sources.PartitionItems(50)}
	}))
	id := rowid.Ordinal(50).Combine(rowid.FromString("generate"))
	checkDivergence(t, d, determinism.Divergence{Parallelism: 2, Round: 1, Position: 50,
		Reference: determinism.Observation{Part: 0, ID: id, Value: int64(50)},
		Candidate: determinism.Observation{Part: 1, ID: id, Value: int64(50)}})
	if msg := d.Error(); !strings.Contains(msg, "item 50 differs (partition)") {
		t.Errorf("message %q does not name the batch", msg)
	}

	// Another source name changes every ID.
	d = verifyDivergence(t, divergent(1000, func(_ int, opts *[]sources.SliceOption, _ *func(int64) int64) {
		*opts = append(*opts, sources.Named("other"))
	}))
	checkDivergence(t, d, determinism.Divergence{Parallelism: 2, Round: 1, Position: 0,
		Reference: determinism.Observation{ID: rowid.Ordinal(0).Combine(rowid.FromString("generate")), Value: int64(0)},
		Candidate: determinism.Observation{ID: rowid.Ordinal(0).Combine(rowid.FromString("other")), Value: int64(0)}})
	if msg := d.Error(); !strings.Contains(msg, "item 0 differs (row ID)") {
		t.Errorf("message %q does not name the row ID", msg)
	}
}

func TestVerifyLengthDivergence(t *testing.T) {
	id := func(i uint64) rowid.ID { return rowid.Ordinal(i).Combine(rowid.FromString("generate")) }
	short := func(p int) *flow.Pipeline {
		n := int64(300)
		if p == 3 {
			n = 250
		}
		return flow.From(counting(n, sources.PartitionItems(100))).Parallel(p)
	}
	err := determinism.Verify[int64](context.Background(), short, determinism.Parallelisms(2, 3, 4))
	var d *determinism.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("Verify = %v, want a *Divergence", err)
	}
	checkDivergence(t, d, determinism.Divergence{Parallelism: 3, Round: 1, Position: 250,
		Reference: determinism.Observation{Part: 2, ID: id(250), Value: int64(250)},
		Candidate: determinism.Observation{Ended: true}})
	if msg := d.Error(); !strings.Contains(msg, "parallelism 3 (round 1) ended early, after 250 items") {
		t.Errorf("message %q", msg)
	}

	long := func(p int) *flow.Pipeline {
		n := int64(300)
		if p > 1 {
			n = 301
		}
		return flow.From(counting(n, sources.PartitionItems(100))).Parallel(p)
	}
	d = verifyDivergence(t, long)
	checkDivergence(t, d, determinism.Divergence{Parallelism: 2, Round: 1, Position: 300,
		Reference: determinism.Observation{Ended: true},
		Candidate: determinism.Observation{Part: 3, ID: id(300), Value: int64(300)}})
	if msg := d.Error(); !strings.Contains(msg, "has an extra item 300 after parallelism 1 ended with 300 items") {
		t.Errorf("message %q", msg)
	}
}

// TestVerifyUnordered makes an unordered merge certain to put partition 1
// first: at parallelism > 1, the map holds partition 0 back until a later
// stage has seen an item of partition 1.
func TestVerifyUnordered(t *testing.T) {
	build := func(p int) *flow.Pipeline {
		seen1 := make(chan struct{})
		var once sync.Once
		return flow.From(counting(400, sources.PartitionItems(100))).
			Via(operators.Map(func(v int64) (int64, error) {
				if p > 1 && v < 100 {
					<-seen1
				}
				return v, nil
			})).Parallel(p).Unordered().
			Via(operators.Map(func(v int64) (int64, error) {
				if v >= 100 && v < 200 {
					once.Do(func() { close(seen1) })
				}
				return v, nil
			}))
	}
	d := verifyDivergence(t, build)
	id := func(i uint64) rowid.ID { return rowid.Ordinal(i).Combine(rowid.FromString("generate")) }
	checkDivergence(t, d, determinism.Divergence{Parallelism: 2, Round: 1, Position: 0,
		Reference: determinism.Observation{Part: 0, ID: id(0), Value: int64(0)},
		Candidate: determinism.Observation{Part: 1, ID: id(100), Value: int64(100)}})
	if msg := d.Error(); !strings.Contains(msg, "item 0 differs (partition, row ID, value)") {
		t.Errorf("message %q", msg)
	}
}

// TestVerifyStreams shows that Verify compares as the runs go: the stream
// has no end, and the divergence is found and the runs stopped.
func TestVerifyStreams(t *testing.T) {
	d := verifyDivergence(t, divergent(-1, func(_ int, _ *[]sources.SliceOption, f *func(int64) int64) {
		*f = func(i int64) int64 {
			if i == 50000 {
				return 0
			}
			return i
		}
	}))
	if d.Position != 50000 || d.Candidate.Value != int64(0) {
		t.Errorf("divergence %+v, want one at item 50000", *d)
	}
}

func TestVerifyErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	failing := func(p int) *flow.Pipeline {
		return flow.From(sources.Generate(500, func(i int64) (int64, error) {
			if p == 4 && i == 321 {
				return 0, boom
			}
			return i, nil
		}, sources.PartitionItems(100))).Parallel(p)
	}
	err := determinism.Verify[int64](ctx, failing)
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "determinism: parallelism 4 (round 1): ") {
		t.Errorf("a failing run: Verify = %v", err)
	}

	wrongType := func(int) *flow.Pipeline { return flow.From(counting(10)) }
	if err := determinism.Verify[string](ctx, wrongType); err == nil || !strings.Contains(err.Error(), "parallelism 1") {
		t.Errorf("wrong type: Verify = %v", err)
	}
	if err := determinism.Verify[int64](ctx, func(int) *flow.Pipeline { return nil }); err == nil ||
		!strings.Contains(err.Error(), "build(1) returned a nil pipeline") {
		t.Errorf("nil pipeline: Verify = %v", err)
	}
	funcs := func(int) *flow.Pipeline {
		return flow.From(sources.Slice([]any{1, func() {}}))
	}
	if err := determinism.Verify[any](ctx, funcs); err == nil || !strings.Contains(err.Error(), "func()") {
		t.Errorf("a value with no encoding: Verify = %v", err)
	}
	never := func(int) *flow.Pipeline { t.Error("build called"); return nil }
	for _, c := range []struct {
		name string
		err  error
	}{
		{"unencodable type", determinism.Verify[func()](ctx, never)},
		{"no parallelisms", determinism.Verify[int64](ctx, never, determinism.Parallelisms())},
		{"parallelism 0", determinism.Verify[int64](ctx, never, determinism.Parallelisms(2, 0))},
		{"0 runs", determinism.Verify[int64](ctx, never, determinism.Runs(0))},
		{"nil option", determinism.Verify[int64](ctx, never, nil)},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), "determinism: ") {
			t.Errorf("%s: Verify = %v, want an error", c.name, c.err)
		}
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := determinism.Verify[int64](cancelled, func(p int) *flow.Pipeline {
		return flow.From(counting(1000)).Parallel(p)
	}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: Verify = %v", err)
	}
}
