package gostreams_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reugn/go-streams/extension"
	gsflow "github.com/reugn/go-streams/flow"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/interop/gostreams"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// feed returns a channel that yields 0 … n-1 and is then closed.
func feed(n int) chan any {
	ch := make(chan any)
	go func() {
		defer close(ch)
		for i := range n {
			ch <- int64(i)
		}
	}()
	return ch
}

// collect reads a ChanSink's channel to the end.
func collect(ch chan any) []any {
	var out []any
	for v := range ch {
		out = append(out, v)
	}
	return out
}

func tripleThenKeepEven(w int) func(*flow.Pipeline) *flow.Pipeline {
	return func(p *flow.Pipeline) *flow.Pipeline {
		return p.Via(operators.Filter(func(v int64) bool { return v%2 == 0 })).Parallel(w).
			Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(w)
	}
}

// A rowflow stage between go-streams stages keeps the order and the
// values, at any parallelism and partition size.
func TestFlowBetweenGoStreamsStages(t *testing.T) {
	const n = 20000
	var want []any
	for i := range int64(n) {
		if v := 3 * i; v%2 == 0 {
			want = append(want, (v+1)*10)
		}
	}
	for _, w := range []int{1, 2, 4} {
		for _, part := range []int{1, 100, 4096} {
			testutil.CheckGoroutines(t)
			out := make(chan any)
			rf := gostreams.NewFlow[int64, int64](context.Background(), tripleThenKeepEven(w), sources.PartitionItems(part))
			go extension.NewChanSource(feed(n)).
				Via(gsflow.NewMap(func(v int64) int64 { return 3 * v }, 1)).
				Via(rf).
				Via(gsflow.NewMap(func(v int64) int64 { return 10 * v }, 1)).
				To(extension.NewChanSink(out))
			got := collect(out)
			if err := rf.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("w=%d part=%d: %d elements, want %d, or they differ", w, part, len(got), len(want))
			}
		}
	}
}

// A go-streams source feeds a rowflow pipeline: partitions are cut by
// count, so batching upstream by go-streams' timer-driven NewBatch gives
// the same items as single elements.
func TestFromCutsPartitionsByCount(t *testing.T) {
	const n = 10000
	read := func(src *extension.ChanSource, batched bool) []flow.Item[int64] {
		var up interface{ Out() <-chan any } = src
		if batched {
			up = src.Via(gsflow.NewBatch[int64](37, time.Millisecond))
		}
		p := flow.From(gostreams.From[int64](up, sources.PartitionItems(500), sources.Named("events"))).
			Via(operators.Map(func(v int64) (int64, error) { return -v, nil })).Parallel(3)
		return testutil.Items[int64](t, p)
	}
	testutil.CheckGoroutines(t)
	plain := read(extension.NewChanSource(feed(n)), false)
	batched := read(extension.NewChanSource(feed(n)), true)
	if len(plain) != n || !slices.Equal(plain, batched) {
		t.Fatalf("%d items, %d batched, or they differ", len(plain), len(batched))
	}
	base := rowid.FromString("events")
	for i, it := range plain {
		if it.Value != -int64(i) || it.Part != int64(i/500) || it.ID != rowid.Ordinal(uint64(i)).Combine(base) {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
}

// A rowflow pipeline as a go-streams source, element by element and
// chunk by chunk.
func TestSourceFeedsGoStreams(t *testing.T) {
	testutil.CheckGoroutines(t)
	p := flow.From(sources.Slice(ints(5000), sources.PartitionItems(300), sources.ChunkSize(64))).
		Via(operators.Map(func(v int64) (int64, error) { return v * 2, nil })).Parallel(3)
	out := make(chan any)
	src := gostreams.NewSource[int64](context.Background(), p)
	go src.Via(gsflow.NewMap(func(v int64) int64 { return v + 1 }, 1)).To(extension.NewChanSink(out))
	got := collect(out)
	if err := src.Err(); err != nil || len(got) != 5000 {
		t.Fatalf("%d elements, %v", len(got), err)
	}
	for i, v := range got {
		if v != int64(2*i+1) {
			t.Fatalf("element %d is %v", i, v)
		}
	}

	chunked := gostreams.NewSource[int64](context.Background(), p, gostreams.Chunked())
	var all []int64
	chunks := 0
	for e := range chunked.Out() {
		all = append(all, e.([]int64)...)
		chunks++
	}
	if err := chunked.Err(); err != nil || len(all) != 5000 || chunks > 5000/64+17 || all[4999] != 9998 {
		t.Fatalf("%d values in %d chunks, %v", len(all), chunks, err)
	}
}

func TestSinkEndsAGoStreamsStream(t *testing.T) {
	testutil.CheckGoroutines(t)
	var got []flow.Item[int64]
	sink := gostreams.NewSink[int64](context.Background(), func(p *flow.Pipeline) *flow.Pipeline {
		return p.Via(operators.Filter(func(v int64) bool { return v%3 == 0 })).Parallel(2).To(sinks.Collect(&got))
	}, sources.PartitionItems(128))
	extension.NewChanSource(feed(3000)).Via(gsflow.NewMap(func(v int64) int64 { return v + 1 }, 1)).To(sink)
	if err := sink.Err(); err != nil || len(got) != 1000 {
		t.Fatalf("%d items, %v", len(got), err)
	}
	for i, it := range got {
		if it.Value != int64(3*i+3) || it.Part != int64(3*i+2)/128 {
			t.Fatalf("item %d: %+v", i, it)
		}
	}
}

var errBad = errors.New("bad value")

// A failing rowflow stage between go-streams stages: the stream after it
// ends early, Err names the stage and the row, and every goroutine on
// both sides returns.
func TestFlowErrorEndsTheStream(t *testing.T) {
	for _, w := range []int{1, 3} {
		testutil.CheckGoroutines(t)
		rf := gostreams.NewFlow[int64, int64](context.Background(), func(p *flow.Pipeline) *flow.Pipeline {
			return p.Via(operators.Map(func(v int64) (int64, error) {
				if v == 7777 {
					return 0, errBad
				}
				return v, nil
			})).Parallel(w)
		}, sources.PartitionItems(100))
		out := make(chan any)
		go extension.NewChanSource(feed(50000)).
			Via(gsflow.NewMap(func(v int64) int64 { return v }, 1)).
			Via(rf).
			Via(gsflow.NewMap(func(v int64) int64 { return v }, 1)).
			To(extension.NewChanSink(out))
		got := collect(out)
		var se *flow.StageError
		if err := rf.Err(); !errors.As(err, &se) || !errors.Is(err, errBad) || !se.HasID || se.Part != 77 {
			t.Fatalf("w=%d: Err = %v", w, err)
		}
		if len(got) > 7700 {
			t.Fatalf("w=%d: %d elements passed the failing partition", w, len(got))
		}
		for i, v := range got {
			if v != int64(i) {
				t.Fatalf("w=%d: element %d is %v", w, i, v)
			}
		}
	}
}

// An element of the wrong type is an error naming its place.
func TestFromWrongElementType(t *testing.T) {
	testutil.CheckGoroutines(t)
	ch := make(chan any)
	go func() {
		defer close(ch)
		for i := range 1000 {
			if i == 345 {
				ch <- "oops"
				continue
			}
			ch <- int64(i)
		}
	}()
	var n int64
	err := flow.From(gostreams.From[int64](extension.NewChanSource(ch))).To(sinks.Count[int64](&n)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "after row 345 is a string") {
		t.Fatalf("Run = %v", err)
	}
}

// With an interface type T, an element that is a T is one value, a []T
// that is not a T is a run of values, and a nil element is a nil T: it
// used to fail the run as "a <nil>, want interface {}".
func TestFromInterfaceElements(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		send := func(elems ...any) *extension.ChanSource {
			ch := make(chan any)
			go func() {
				defer close(ch)
				for _, e := range elems {
					ch <- e
				}
			}()
			return extension.NewChanSource(ch)
		}
		anys := testutil.Items[any](t, flow.From(gostreams.From[any](send(int64(1), []any{2, 3}, nil, "x"), sources.PartitionItems(2))))
		want := []any{int64(1), []any{2, 3}, nil, "x"}
		if len(anys) != len(want) {
			t.Fatalf("T any: %d items, want %d: %v", len(anys), len(want), anys)
		}
		for i, it := range anys {
			if !reflect.DeepEqual(it.Value, want[i]) || it.Part != int64(i/2) || it.ID != rowid.Ordinal(uint64(i)).Combine(rowid.FromString("gostreams")) {
				t.Fatalf("T any: item %d is %+v, want value %#v in partition %d", i, it, want[i], i/2)
			}
		}

		errA, errB := errors.New("a"), errors.New("b")
		var errs []error
		for _, it := range testutil.Items[error](t, flow.From(gostreams.From[error](send(errA, nil, []error{nil, errB})))) {
			errs = append(errs, it.Value)
		}
		if !slices.Equal(errs, []error{errA, nil, nil, errB}) {
			t.Fatalf("T error: values %v, want [a <nil> <nil> b]", errs)
		}
	})
}

// Cancelling a run drains the go-streams input, and OnStop ends an
// endless one, so no goroutine is left on either side.
func TestCancelDrainsTheInput(t *testing.T) {
	testutil.CheckGoroutines(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rf := gostreams.NewFlow[int64, int64](ctx, tripleThenKeepEven(2))
	out := make(chan any)
	go extension.NewChanSource(feed(100000)).Via(gsflow.NewMap(func(v int64) int64 { return v }, 1)).
		Via(rf).To(extension.NewChanSink(out))
	k := 0
	for range out {
		if k++; k == 1000 {
			cancel()
		}
	}
	if err := rf.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err = %v", err)
	}

	// An endless source, stopped by OnStop; the loop leaves early.
	stop := make(chan struct{})
	endless := make(chan any)
	go func() {
		defer close(endless)
		for i := int64(0); ; i++ {
			select {
			case endless <- i:
			case <-stop:
				return
			}
		}
	}()
	p := flow.From(gostreams.From[int64](extension.NewChanSource(endless), gostreams.OnStop(func() { close(stop) })))
	k = 0
	for v, err := range flow.Values[int64](context.Background(), p) {
		if err != nil || v != int64(k) {
			t.Fatalf("value %d: %v, %v", k, v, err)
		}
		if k++; k == 5000 {
			break
		}
	}
	// The stream was read once.
	if err := p.To(sinks.Count[int64](new(int64))).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "can be read once") {
		t.Fatalf("second run: %v", err)
	}
}

// A go-streams consumer that stops reading a rowflow source: cancelling
// the context ends the run. What the output channel had buffered is a
// continuation of the stream, and then the channel is closed.
func TestSourceConsumerStops(t *testing.T) {
	testutil.CheckGoroutines(t)
	ctx, cancel := context.WithCancel(context.Background())
	src := gostreams.NewSource[int64](ctx, flow.From(sources.Generate(-1, func(i int64) (int64, error) { return i, nil })))
	for range 10 {
		<-src.Out()
	}
	cancel()
	if err := src.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err = %v", err)
	}
	next := int64(10)
	for v := range src.Out() { // ends: the output is closed
		if v != next {
			t.Fatalf("after the cancel, %v where %d was next", v, next)
		}
		next++
	}
	if next-10 > 1024 {
		t.Errorf("%d values after the cancel; the channel holds at most 1024", next-10)
	}
}

func TestOptionsRefuse(t *testing.T) {
	for want, o := range map[string]gostreams.InputOption{
		"sources: PartitionItems(0)":     sources.PartitionItems(0),
		"sources: ChunkSize(0)":          sources.ChunkSize(0),
		`sources: Named(""): empty name`: sources.Named(""),
		"gostreams: OnStop(nil)":         gostreams.OnStop(nil),
	} {
		err := flow.From(gostreams.From[int64](extension.NewChanSource(feed(0)), o)).To(sinks.Count[int64](new(int64))).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Run = %v, want an error naming %s", err, want)
		}
	}
}

func ints(n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	return v
}

// The partition size decides the items' partition numbers, so it is part
// of a pipeline's fingerprint; the chunk size is not.
func TestFromSettingsInFingerprint(t *testing.T) {
	fp := func(opts ...gostreams.InputOption) string {
		return flow.From(gostreams.From[int64](extension.NewChanSource(make(chan any)), opts...)).Fingerprint()
	}
	if a, b := fp(sources.PartitionItems(10)), fp(sources.PartitionItems(50)); a == b {
		t.Errorf("partition sizes 10 and 50: one fingerprint %s", a)
	}
	if a, b := fp(sources.ChunkSize(8)), fp(sources.ChunkSize(16)); a != b {
		t.Errorf("chunk sizes 8 and 16: fingerprints %s and %s", a, b)
	}
}

// A nil option is an error of the adapter's run, whichever adapter it is
// given to, not a panic; the input is drained.
func TestNilOptionRefused(t *testing.T) {
	ctx := context.Background()
	count := func(p *flow.Pipeline) *flow.Pipeline { return p.To(sinks.Count[int64](new(int64))) }
	errs := map[string]error{
		"From": flow.From(gostreams.From[int64](extension.NewChanSource(feed(3)), nil)).
			To(sinks.Count[int64](new(int64))).Run(ctx),
		"NewSource": gostreams.NewSource[int64](ctx, flow.From(sources.Slice(ints(3))), nil).Err(),
	}
	f := gostreams.NewFlow[int64, int64](ctx, func(p *flow.Pipeline) *flow.Pipeline { return p }, gostreams.Chunked(), nil)
	gsflow.DoStream(extension.NewChanSource(feed(3)), f)
	for range f.Out() {
	}
	errs["NewFlow"] = f.Err()
	s := gostreams.NewSink[int64](ctx, count, nil)
	gsflow.DoStream(extension.NewChanSource(feed(3)), s)
	s.AwaitCompletion()
	errs["NewSink"] = s.Err()
	for name, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "gostreams: nil option") {
			t.Errorf("%s with a nil option: %v, want gostreams: nil option", name, err)
		}
	}
}
