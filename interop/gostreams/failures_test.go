package gostreams_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/reugn/go-streams/extension"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/interop/gostreams"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// producer starts a go-streams producer of n elements and returns its
// channel and a channel closed once it has sent them all.
func producer(n int) (chan any, chan struct{}) {
	ch, done := make(chan any), make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		for i := range n {
			ch <- int64(i)
		}
	}()
	return ch, done
}

// A source with a bad option can never be read: its input is drained at
// once, so that the go-streams producer finishes.
func TestBadOptionDrains(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ch, done := producer(10)
		var n int64
		err := flow.From(gostreams.From[int64](extension.NewChanSource(ch), sources.PartitionItems(0))).
			To(sinks.Count[int64](&n)).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "PartitionItems") {
			t.Fatalf("error %v, want the bad option's", err)
		}
		<-done // blocks for ever, and synctest reports a deadlock, if nothing drains
		if n != 0 {
			t.Fatalf("%d rows counted by a run that failed", n)
		}
	})
}

// A build function that panics or returns nil fails the adapter's run
// with an error that says so, and the input is drained.
func TestBuildFailures(t *testing.T) {
	for name, build := range map[string]func(*flow.Pipeline) *flow.Pipeline{
		"nil":   func(*flow.Pipeline) *flow.Pipeline { return nil },
		"panic": func(*flow.Pipeline) *flow.Pipeline { panic("boom") },
	} {
		want := map[string]string{"nil": "returned nil", "panic": "panicked"}[name]
		testutil.Synctest(t, func(t *testing.T) {
			f := gostreams.NewFlow[int64, int64](context.Background(), build)
			for i := range 5 {
				f.In() <- int64(i)
			}
			close(f.In())
			var out int
			for range f.Out() {
				out++
			}
			err := f.Err()
			if err == nil || !strings.Contains(err.Error(), want) || out != 0 {
				t.Fatalf("NewFlow, build %s: %d elements out, error %v; want none and an error saying %q", name, out, err, want)
			}
			var pe *flow.PanicError
			if name == "panic" && !errors.As(err, &pe) {
				t.Fatalf("NewFlow: %v is not a PanicError", err)
			}

			s := gostreams.NewSink[int64](context.Background(), build)
			for i := range 5 {
				s.In() <- int64(i)
			}
			close(s.In())
			if err := s.Err(); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("NewSink, build %s: error %v, want one saying %q", name, err, want)
			}
		})
	}
}

// A nil pipeline or build function is an error that Err returns, not a
// panic in the adapter's goroutine, which would end the program.
func TestNilArguments(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		s := gostreams.NewSource[int64](context.Background(), nil)
		var out int
		for range s.Out() {
			out++
		}
		if err := s.Err(); err == nil || err.Error() != "gostreams: NewSource of a nil pipeline" || out != 0 {
			t.Fatalf("NewSource(nil): %d elements out, error %v; want none and the nil pipeline's error", out, err)
		}

		const want = "gostreams: no function to build the pipeline (nil)"
		f := gostreams.NewFlow[int64, int64](context.Background(), nil)
		for i := range 5 {
			f.In() <- int64(i)
		}
		close(f.In())
		for range f.Out() {
			out++
		}
		if err := f.Err(); err == nil || err.Error() != want || out != 0 {
			t.Fatalf("NewFlow(nil): %d elements out, error %v; want none and %q", out, err, want)
		}

		k := gostreams.NewSink[int64](context.Background(), nil)
		close(k.In())
		if err := k.Err(); err == nil || err.Error() != want {
			t.Fatalf("NewSink(nil): error %v, want %q", err, want)
		}
	})
}

// The stream can be read once: a second epoch of one run fails, saying
// so and pointing at a cache.
func TestSecondEpochFails(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ch, _ := producer(10)
		var n int64
		err := flow.From(gostreams.From[int64](extension.NewChanSource(ch))).Epochs(2).
			To(sinks.Count[int64](&n)).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), "earlier epoch") || !strings.Contains(err.Error(), "cache") {
			t.Fatalf("two epochs: error %v, want one naming the earlier epoch and the cache", err)
		}
	})
}

// Several epochs read the stream through operators.Cache, as From's doc
// says: the first epoch reads it, the second replays the same rows with
// the same IDs.
func TestEpochsThroughCache(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ch, done := producer(10)
		src := gostreams.From[int64](extension.NewChanSource(ch), sources.PartitionItems(4))
		p := flow.From(operators.Cache[int64](flow.From(src))).Epochs(2)
		var got []flow.Item[int64]
		for it, err := range flow.Items[int64](context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, it)
		}
		<-done
		if len(got) != 20 {
			t.Fatalf("%d items, want 10 in each of 2 epochs", len(got))
		}
		base := rowid.FromString("gostreams")
		for i, it := range got {
			e, v := int64(i/10), int64(i%10)
			part := epoch.Part(e, v/4)
			if it.Value != v || it.ID != rowid.Ordinal(uint64(v)).Combine(base) || it.Part != part {
				t.Fatalf("item %d: %+v, want value %d, ID %v, partition %d", i, it, v, rowid.Ordinal(uint64(v)).Combine(base), part)
			}
		}
	})
}

// A run that fails before it starts never reaches the source, which
// leaves its input unread: a later run of the same pipeline reads all of
// it, in order.
func TestFailedStartLeavesInput(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ch, done := producer(10)
		p := flow.From(gostreams.From[int64](extension.NewChanSource(ch)))
		for _, err := range flow.Values[int32](context.Background(), p) {
			if err == nil || !strings.Contains(err.Error(), "iterator takes int32") {
				t.Fatalf("a loop over int32: error %v, want the type mismatch", err)
			}
		}
		var got []int64
		for v, err := range flow.Values[int64](context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		<-done
		if !slices.Equal(got, ints(10)) {
			t.Fatalf("the run after the failed one read %v, want 0 to 9", got)
		}
	})
}

// A go-streams source that is idle and never closes: cancelling the run
// makes Run return (issue 27, finding 12: it stayed blocked unless OnStop
// was set). The adapter's goroutine keeps draining the source, so that
// what it sends later does not block, and returns when it closes.
func TestCancelIdleSourceReturns(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ch := make(chan any)
		ctx, cancel := context.WithCancel(context.Background())
		var n int64
		done := make(chan error, 1)
		go func() {
			done <- flow.From(gostreams.From[int64](extension.NewChanSource(ch), sources.PartitionItems(4))).
				To(sinks.Count[int64](&n)).Run(ctx)
		}()
		ch <- int64(1) // read by the run: the source is running
		synctest.Wait()
		cancel()
		synctest.Wait()
		var err error
		select {
		case err = <-done:
		default:
			close(ch) // let the blocked run end, so that the bubble does
			<-done
			t.Fatal("Run still blocked after cancel on a source that never closes")
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v, want context.Canceled", err)
		}
		// The source sends again after the run: the drain takes it.
		sent := make(chan struct{})
		go func() {
			ch <- int64(2)
			close(sent)
		}()
		synctest.Wait()
		select {
		case <-sent:
		default:
			t.Fatal("a send after the run is blocked: nothing drains the source")
		}
		close(ch) // the drain returns; Synctest checks that no goroutine is left
	})
}
