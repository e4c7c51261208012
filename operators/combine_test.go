package operators_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// combineInputs are three pipelines of different sizes with stages of
// their own, parallel at n: values are 1_000_000·input + row.
func combineInputs(n int, sizes ...int64) []*flow.Pipeline {
	var ps []*flow.Pipeline
	for i, size := range sizes {
		base := int64(1_000_000 * i)
		ps = append(ps, flow.From(sources.Generate(size, func(k int64) (int64, error) { return base + k, nil },
			sources.Named("in"), sources.PartitionItems(97))).Parallel(n).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(n))
	}
	return ps
}

// inputItem is row k of input i as a combination gives it.
func inputItem(i int, k int64) (int64, rowid.ID) {
	return int64(1_000_000*i) + k, rowid.Ordinal(uint64(k)).Combine(rowid.FromString("in")).Combine(rowid.Ordinal(uint64(i)).Combine(rowid.FromString("rowflow input")))
}

func combineRun(t *testing.T, src func(n int) flow.Source[int64], n int, seed uint64, epochs int64) []flow.Item[int64] {
	t.Helper()
	return testutil.Items[int64](t, flow.From(src(n)).
		Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(n).
		Epochs(epochs).WithSeed(seed))
}

// checkCombine checks a combination at several parallelisms against the
// serial run and against want, the serial computation of its values.
func checkCombine(t *testing.T, src func(n int) flow.Source[int64], want []int64) []flow.Item[int64] {
	t.Helper()
	testutil.CheckGoroutines(t)
	ref := combineRun(t, src, 1, 3, 1)
	for _, n := range []int{2, 4, 8} {
		if got := combineRun(t, src, n, 3, 1); !slices.Equal(got, ref) {
			t.Fatalf("parallelism %d differs from serial", n)
		}
	}
	err := determinism.Verify[int64](context.Background(), func(n int) *flow.Pipeline {
		return flow.From(src(n)).Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(n).WithSeed(3)
	}, determinism.Parallelisms(2, 4, 8))
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range ref {
		v := it.Value
		if _, id := inputItem(int(v/1_000_000), v%1_000_000); id != it.ID {
			t.Fatalf("item %d (%d): ID %v, want the input's ID combined with InputID", i, v, it.ID)
		}
		if i > 0 && it.Part < ref[i-1].Part {
			t.Fatalf("item %d: partition %d after %d", i, it.Part, ref[i-1].Part)
		}
	}
	if want != nil {
		var got []int64
		for _, it := range ref {
			got = append(got, it.Value)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("values differ from the serial computation (%d against %d)", len(got), len(want))
		}
	}
	return ref
}

func TestConcat(t *testing.T) {
	var want []int64
	for i, n := range []int64{300, 0, 50} {
		for k := range n {
			v, _ := inputItem(i, k)
			want = append(want, v)
		}
	}
	checkCombine(t, func(n int) flow.Source[int64] {
		return operators.Concat[int64](combineInputs(n, 300, 0, 50)...)
	}, want)
}

// interleaveSerial is tf.data's interleave on lists, the loop of its
// InterleaveDataset's GetNext: a turn that finds its slot's input without
// a row left ends, and the next input opens in the slot when the round is
// back at it.
func interleaveSerial(sizes []int64, cycle, block int) []int64 {
	var out []int64
	pos := make([]int64, len(sizes))
	slot := make([]int, cycle) // the slot's input, or -1
	for s := range slot {
		slot[s] = -1
	}
	next, open, s, took := 0, 0, 0, 0
	advance := func() { s, took = (s+1)%cycle, 0 }
	for next < len(sizes) || open > 0 {
		switch i := slot[s]; {
		case i >= 0 && pos[i] < sizes[i]:
			v, _ := inputItem(i, pos[i])
			out = append(out, v)
			pos[i]++
			if took++; took == block {
				advance()
			}
		case i >= 0:
			slot[s], open = -1, open-1
			advance()
		case next < len(sizes):
			slot[s], next, open = next, next+1, open+1
		default:
			advance()
		}
	}
	return out
}

func TestInterleave(t *testing.T) {
	sizes := []int64{250, 40, 0, 130}
	for _, c := range [][2]int{{2, 3}, {4, 1}, {1, 7}, {3, 64}, {2, 1}, {3, 2}} {
		checkCombine(t, func(n int) flow.Source[int64] {
			return operators.Interleave[int64](combineInputs(n, sizes...), c[0], c[1], operators.PartitionItems(50))
		}, interleaveSerial(sizes, c[0], c[1]))
	}
}

func countInputs(items []flow.Item[int64]) []int {
	counts := make([]int, 3)
	for _, it := range items {
		counts[it.Value/1_000_000]++
	}
	return counts
}

func TestMix(t *testing.T) {
	weights := []float64{5, 3, 2}
	src := func(n int) flow.Source[int64] {
		return operators.Mix[int64](combineInputs(n, 6000, 6000, 6000), weights, operators.PartitionItems(500))
	}
	ref := checkCombine(t, src, nil)
	uniqueIDs(t, "mix", ref)
	if len(ref) != 18000 {
		t.Fatalf("%d items, want all 18000", len(ref))
	}
	// Before any input runs out, input i's share is weights[i]/10 within
	// sampling error (4 standard deviations).
	const head = 8000
	for i, c := range countInputs(ref[:head]) {
		p := weights[i] / 10
		if sd := math.Sqrt(head * p * (1 - p)); math.Abs(float64(c)-head*p) > 4*sd {
			t.Errorf("input %d: %d of the first %d rows, want %.0f ± %.0f", i, c, head, head*p, 4*sd)
		}
	}
	// Rows of each input keep their order.
	last := []int64{-1, -1, -1}
	for _, it := range ref {
		i := it.Value / 1_000_000
		if it.Value <= last[i] {
			t.Fatalf("input %d: %d after %d", i, it.Value, last[i])
		}
		last[i] = it.Value
	}
	epochs := combineRun(t, src, 2, 3, 2)
	if sameValues(epochs[:18000], epochs[18000:]) || sameValues(combineRun(t, src, 2, 4, 1), ref) {
		t.Fatal("another epoch or seed gives the same order")
	}
}

func sameValues(a, b []flow.Item[int64]) bool {
	return slices.EqualFunc(a, b, func(x, y flow.Item[int64]) bool { return x.Value == y.Value })
}

func TestMixPolicies(t *testing.T) {
	mix := func(policy exhausted) func(n int) flow.Source[int64] {
		return func(n int) flow.Source[int64] {
			return operators.Mix[int64](combineInputs(n, 2000, 300, 1000), []float64{1, 1, 1}, withExhausted(policy)...)
		}
	}
	// Stop: the epoch ends when the small input runs out.
	stop := checkCombine(t, mix(stopExhausted), nil)
	if c := countInputs(stop); c[1] != 300 || c[0] >= 2000 || c[2] >= 1000 {
		t.Fatalf("StopExhausted: rows per input %v", c)
	}
	// Cycle: the epoch ends when every input has run out once; the
	// smaller ones repeat, reshuffled by their epochs.
	cyc := checkCombine(t, mix(cycleExhausted), nil)
	if c := countInputs(cyc); c[0] > 2000 || c[1] <= 300 || c[2] < 1000 || c[0] < 2000 && c[1]%300 != 0 {
		t.Fatalf("CycleExhausted: rows per input %v", c)
	}
}

func TestCombineLeavesNothingRunning(t *testing.T) {
	testutil.CheckGoroutines(t)
	boom := errors.New("boom")
	bad := flow.From(sources.Generate(5000, func(k int64) (int64, error) {
		if k == 3000 {
			return 0, boom
		}
		return k, nil
	})).Parallel(3)
	ins := append(combineInputs(2, 5000, 5000), bad)
	var err error
	for _, e := range flow.Items[int64](context.Background(), flow.From(operators.Mix[int64](ins, []float64{1, 1, 1}))) {
		err = e
	}
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "mix input 2") {
		t.Fatalf("error %v: want boom from mix input 2", err)
	}
	// Leaving early stops every input.
	n := 0
	for _, e := range flow.Items[int64](context.Background(), flow.From(operators.Interleave[int64](combineInputs(2, 5000, 5000), 2, 10))) {
		if e != nil {
			t.Fatal(e)
		}
		if n++; n == 100 {
			break
		}
	}
}

func TestCombineBuildErrors(t *testing.T) {
	two := combineInputs(1, 5, 5)
	withSink := flow.From(sources.Slice([]int64{1})).To(flow.Sink{})
	for name, src := range map[string]flow.Source[int64]{
		"no inputs":  operators.Concat[int64](),
		"nil input":  operators.Concat[int64](two[0], nil),
		"wrong type": operators.Concat[int64](flow.From(sources.Slice([]string{"a"}))),
		"sink":       operators.Concat[int64](withSink),
		"weights":    operators.Mix[int64](two, []float64{1}),
		"negative":   operators.Mix[int64](two, []float64{1, -1}),
		"NaN":        operators.Mix[int64](two, []float64{1, math.NaN()}),
		"zero sum":   operators.Mix[int64](two, []float64{0, 0}),
		"rows":       operators.Mix[int64](two, []float64{1, 1}, operators.PartitionItems(0)),
		"block":      operators.Interleave[int64](two, 2, 0),
		"cycle":      operators.Interleave[int64](two, 1, 1, operators.CycleExhausted()),
	} {
		if err := flow.From(src).Err(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := flow.From(operators.Concat[int64](two...)).Parallel(2).Err(); err == nil {
		t.Error("Parallel(2) on a combination: no error")
	}
}

// fpSink records the fingerprint a run gives its sink.
type fpSink struct{ fp *string }

func (s fpSink) Info() flow.Info { return flow.Info{Name: "fp"} }
func (s fpSink) NewConsumer(env flow.Env) flow.Consumer[int64] {
	*s.fp = env.Fingerprint
	return s
}
func (s fpSink) Consume(_ context.Context, c flow.Chunk[int64]) error { c.Release(); return nil }
func (s fpSink) Close(error) error                                    { return nil }

// A combination's fingerprint covers its inputs and options.
func TestCombineFingerprint(t *testing.T) {
	fp := func(src flow.Source[int64]) string {
		var got string
		if err := flow.From(src).To(flow.NewSink[int64](fpSink{&got})).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		return got
	}
	ins := func() []*flow.Pipeline { return combineInputs(1, 10, 10) }
	base := fp(operators.Mix[int64](ins(), []float64{1, 2}))
	if again := fp(operators.Mix[int64](ins(), []float64{1, 2})); again != base {
		t.Fatalf("one definition, two fingerprints: %s, %s", base, again)
	}
	changed := ins()
	changed[1] = changed[1].Via(operators.Filter(func(int64) bool { return true }))
	for name, src := range map[string]flow.Source[int64]{
		"weights": operators.Mix[int64](ins(), []float64{2, 1}),
		"policy":  operators.Mix[int64](ins(), []float64{1, 2}, operators.StopExhausted()),
		"stage":   operators.Mix[int64](changed, []float64{1, 2}),
		"seed":    operators.Mix[int64]([]*flow.Pipeline{ins()[0], ins()[1].WithSeed(5)}, []float64{1, 2}),
		"kind":    operators.Interleave[int64](ins(), 2, 1),
	} {
		if fp(src) == base {
			t.Errorf("%s: the fingerprint did not change", name)
		}
	}
}

// A combination read through a cursor set consolidates to its serial
// stream.
func TestCombineCursors(t *testing.T) {
	testutil.CheckGoroutines(t)
	build := func() *flow.Pipeline {
		return flow.From(operators.Mix[int64](combineInputs(2, 3000, 2000, 1000), []float64{1, 2, 3}, operators.PartitionItems(300))).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(3).WithSeed(4)
	}
	want := testutil.Items[int64](t, build())
	set, err := flow.Cursors[int64](context.Background(), build(), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	var got []flow.Item[int64]
	for it, err := range set.Consolidate() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it)
	}
	if !slices.Equal(got, want) || len(want) != 6000 {
		t.Fatalf("consolidated %d items, serial %d, or they differ", len(got), len(want))
	}
}

// The combinations take the Common options: Named names the combination
// in errors and in its Info, PartitionItems sizes its partitions.
func TestCombineCommonOptions(t *testing.T) {
	boom := errors.New("boom")
	bad := flow.From(sources.Generate(50, func(k int64) (int64, error) {
		if k == 30 {
			return 0, boom
		}
		return k, nil
	}))
	src := operators.Mix[int64](append(combineInputs(1, 100), bad), []float64{1, 1}, operators.Named("blend"))
	if name := src.Info().Name; name != "blend" {
		t.Fatalf("Named(\"blend\"): Info names %q", name)
	}
	var err error
	for _, e := range flow.Items[int64](context.Background(), flow.From(src)) {
		err = e
	}
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "blend input 1") {
		t.Fatalf("error %v: want boom from blend input 1", err)
	}
	items := testutil.Items[int64](t, flow.From(operators.Concat[int64](combineInputs(1, 100, 50)...)))
	parts := testutil.Items[int64](t, flow.From(operators.Interleave[int64](combineInputs(1, 100, 50), 2, 3, operators.PartitionItems(40))))
	if len(items) != 150 || items[149].Part != 0 || len(parts) != 150 || parts[39].Part != 0 || parts[40].Part != 1 || parts[149].Part != 3 {
		t.Fatalf("partitions: Concat's last row in %d (want 0 of 4096 rows), Interleave's rows 39, 40, 149 in %d, %d, %d (want 0, 1, 3 of 40 rows)",
			items[149].Part, parts[39].Part, parts[40].Part, parts[149].Part)
	}
	if err := flow.From(operators.Mix[int64](combineInputs(1, 5), []float64{1}, operators.Named(""))).Err(); err == nil || !strings.Contains(err.Error(), "Named(\"\")") {
		t.Fatalf("Named(\"\"): %v", err)
	}
}
