package flow_test

import (
	"context"
	"errors"
	"iter"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// funcSource is a source with caller-defined partitions.
type funcSource struct {
	parts int
	read  func(ctx context.Context, b int64, out flow.Emitter[int64]) error
	done  chan struct{} // closed when Partitions has yielded every partition, if not nil
}

func (s *funcSource) Info() flow.Info { return flow.Info{Name: "func"} }

func (s *funcSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	return func(yield func(flow.Partition[int64], error) bool) {
		for b := range int64(s.parts) {
			p := flow.Partition[int64]{Part: b, Read: func(ctx context.Context, out flow.Emitter[int64]) error {
				return s.read(ctx, b, out)
			}}
			if !yield(p, nil) {
				return
			}
		}
		if s.done != nil {
			close(s.done)
		}
	}
}

func oneValueChunk(b int64, v int64, end bool) flow.Chunk[int64] {
	return flow.Chunk[int64]{Part: b, IDs: flow.ListIDs([]rowid.ID{{Lo: uint64(v)}}), Values: []int64{v}, End: end}
}

// A panic in the body of a loop over Chunks ends the run: every goroutine
// is gone once the panic has left the loop.
func TestChunksPanicInLoopBodyEndsTheRun(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		func() {
			defer func() { _ = recover() }()
			for _, err := range flow.Chunks[int64](context.Background(), endless(2)) {
				if err != nil {
					t.Fatal(err)
				}
				panic("boom")
			}
		}()
	})
}

// A recovered panic in the body of a loop over Items or Values leaves the
// loop without stopping the run (the iterators have no deferred call, so
// that they inline); the run is cancelled once the garbage collector finds
// the loop's state unreachable, and its goroutines exit.
func TestItemsPanicInLoopBodyStopsTheRunAfterGC(t *testing.T) {
	loops := map[string]func(){
		"Items": func() {
			for _, err := range flow.Items[int64](context.Background(), endless(2)) {
				if err != nil {
					t.Fatal(err)
				}
				panic("boom")
			}
		},
		"Values": func() {
			for _, err := range flow.Values[int64](context.Background(), endless(2)) {
				if err != nil {
					t.Fatal(err)
				}
				panic("boom")
			}
		},
	}
	for name, loop := range loops {
		t.Run(name, func(t *testing.T) {
			base := runtime.NumGoroutine()
			func() {
				defer func() {
					if r := recover(); r != "boom" {
						t.Fatalf("recovered %v, want the body's panic", r)
					}
				}()
				loop()
			}()
			if n := runtime.NumGoroutine(); n <= base {
				t.Fatalf("%d goroutines after the panic, %d before: the run should still be going until a GC", n, base)
			}
			deadline := time.Now().Add(10 * time.Second)
			for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
				runtime.GC()
				runtime.Gosched()
			}
			if n := runtime.NumGoroutine(); n > base {
				t.Fatalf("%d goroutines still running after GC, %d before the loop", n, base)
			}
		})
	}
}

// A parent context cancelled while chunks are still on their way, after
// every stage has finished, must not look like the end of the stream.
func TestItemsCancelledLateReportsIt(t *testing.T) {
	testutil.Synctest(t, itemsCancelledLate)
}

func itemsCancelledLate(t *testing.T) {
	const parts = 3
	done := make(chan struct{})
	src := &funcSource{parts: parts, done: done, read: func(ctx context.Context, b int64, out flow.Emitter[int64]) error {
		return out.Push(ctx, oneValueChunk(b, b, true))
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := 0
	var lastErr error
	for _, err := range flow.Items[int64](ctx, flow.From[int64](src)) {
		if err != nil {
			lastErr = err
			break
		}
		got++
		if got == 1 {
			<-done          // every partition has been read and pushed,
			synctest.Wait() // and the source goroutine has closed its channel
			cancel()
		}
	}
	if got != parts && lastErr == nil {
		t.Fatalf("iterator ended after %d of %d items with no error", got, parts)
	}
}

// An unordered parallel stage whose partition ends without an End chunk
// after exactly as many chunks as a partition's buffer holds: the End the
// runtime adds must not block before the merge knows the partition.
func TestUnorderedPartitionWithoutEndAfterFullBuffer(t *testing.T) {
	testutil.Synctest(t, unorderedWithoutEnd)
}

func unorderedWithoutEnd(t *testing.T) {
	src := &funcSource{parts: 1, read: func(ctx context.Context, b int64, out flow.Emitter[int64]) error {
		for k := range int64(64) {
			if err := out.Push(ctx, oneValueChunk(b, k, false)); err != nil {
				return err
			}
		}
		return nil // no End chunk: the runtime promises to add it
	}}
	p := flow.From[int64](src).Parallel(2).Unordered()
	var n int64
	errc := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { errc <- p.To(sinks.Count[int64](&n)).Run(ctx) }()
	synctest.Wait()
	select {
	case err := <-errc:
		if err != nil || n != 64 {
			t.Fatalf("got %d, %v", n, err)
		}
	default:
		cancel()
		<-errc
		t.Fatal("unordered run hung: endTask blocked on a full channel the merge does not know")
	}
}

// panicOp panics in NewProcessor.
type panicOp struct{}

func (panicOp) Info() flow.Info { return flow.Info{Name: "panic-op"} }
func (panicOp) NewProcessor(flow.Env) flow.Processor[int64, int64] {
	panic("cannot build processor")
}

// A panic in a serial stage's NewProcessor is an error of the run, and the
// goroutines already started downstream are cancelled.
func TestNewProcessorPanicBecomesError(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		p := flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil })).
			Via(flow.NewStage[int64, int64](panicOp{})).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(2)
		var n int64
		var err error
		panicked := func() (r any) {
			defer func() { r = recover() }()
			err = p.To(sinks.Count[int64](&n)).Run(context.Background())
			return nil
		}()
		if panicked != nil {
			t.Fatalf("Run panicked instead of returning an error: %v", panicked)
		}
		var pe *flow.PanicError
		if !errors.As(err, &pe) || pe.Value != "cannot build processor" {
			t.Fatalf("Run = %v, want the panic as an error", err)
		}
	})
}

// panicCloseSink's consumer panics in Close.
type panicCloseSink struct{}

func (panicCloseSink) Info() flow.Info { return flow.Info{Name: "panic-close"} }
func (panicCloseSink) NewConsumer(flow.Env) flow.Consumer[int64] {
	return panicCloseConsumer{}
}

type panicCloseConsumer struct{}

func (panicCloseConsumer) Consume(ctx context.Context, c flow.Chunk[int64]) error {
	c.Release()
	return nil
}
func (panicCloseConsumer) Close(error) error { panic("close failed") }

func TestConsumerClosePanicBecomesError(t *testing.T) {
	p := flow.From(sources.Generate(10, func(i int64) (int64, error) { return i, nil })).
		To(flow.NewSink[int64](panicCloseSink{}))
	var err error
	panicked := func() (r any) {
		defer func() { r = recover() }()
		err = p.Run(context.Background())
		return nil
	}()
	if panicked != nil {
		t.Fatalf("Run panicked instead of returning an error: %v", panicked)
	}
	var pe *flow.PanicError
	if !errors.As(err, &pe) || pe.Value != "close failed" {
		t.Fatalf("Run = %v, want the Close panic as an error", err)
	}
}

// A source whose Read returns ErrStop itself, not passing on a downstream
// stop, breaks the contract: the run fails with an error saying so.
func TestSourceErrStopIsAnError(t *testing.T) {
	testutil.Synctest(t, sourceErrStop)
}

func sourceErrStop(t *testing.T) {
	src := &funcSource{parts: 2, read: func(ctx context.Context, b int64, out flow.Emitter[int64]) error {
		if b == 1 {
			return flow.ErrStop
		}
		return out.Push(ctx, oneValueChunk(b, b, true))
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		var err error
		for _, e := range flow.Items[int64](ctx, flow.From[int64](src)) {
			if e != nil {
				err = e
			}
		}
		done <- err
	}()
	synctest.Wait()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "source returned ErrStop") {
			t.Fatalf("iterator ended with %v, want an error about the source's ErrStop", err)
		}
	default:
		cancel()
		<-done
		t.Fatal("iterator hung after a source returned ErrStop")
	}
}
