package flow

import (
	"context"
	"fmt"
	"iter"
	"reflect"

	"github.com/rowflow/rowflow/rowid"
)

// Items runs p, which must have no sink and produce values of type T, and
// returns its items in order.
//
// The run starts when the loop starts and each loop runs p anew. Leaving
// the loop early (break, return, panic) cancels the run and waits for all
// its goroutines before the loop statement completes. An error ends the
// sequence: it is yielded once, with a zero Item, as the last pair. If p's
// output type is not T, that error is the only pair.
func Items[T any](ctx context.Context, p *Pipeline) iter.Seq2[Item[T], error] {
	return func(yield func(Item[T], error) bool) {
		for c, err := range chunks[T](ctx, p) {
			if err != nil {
				yield(Item[T]{}, err)
				return
			}
			if !yieldItems(&c, yield) {
				c.Release()
				return
			}
			c.Release()
		}
	}
}

// yieldItems yields the items of c, and reports false if yield did. It
// takes the IDs in whichever form c holds them, without [IDs.At]'s
// checks per item.
func yieldItems[T any](c *Chunk[T], yield func(Item[T], error) bool) bool {
	ids, b := &c.IDs, c.Batch
	switch {
	case !ids.run:
		list := ids.list[:len(c.Values)]
		for k, v := range c.Values {
			if !yield(Item[T]{Batch: b, ID: list[k], Value: v}, nil) {
				return false
			}
		}
	case ids.sel == nil:
		comb, first := ids.comb, ids.first
		for k, v := range c.Values {
			if !yield(Item[T]{Batch: b, ID: comb.Combine(rowid.Ordinal(first + uint64(k))), Value: v}, nil) {
				return false
			}
		}
	default:
		comb, first, sel := ids.comb, ids.first, ids.sel[:len(c.Values)]
		for k, v := range c.Values {
			if !yield(Item[T]{Batch: b, ID: comb.Combine(rowid.Ordinal(first + uint64(sel[k]))), Value: v}, nil) {
				return false
			}
		}
	}
	return true
}

// Values is [Items] without batch numbers and IDs.
func Values[T any](ctx context.Context, p *Pipeline) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for c, err := range chunks[T](ctx, p) {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, v := range c.Values {
				if !yield(v, nil) {
					c.Release()
					return
				}
			}
			c.Release()
		}
	}
}

// Chunks is [Items] chunk by chunk, for consumers that work on whole
// chunks. Each chunk belongs to the loop body, which may keep it or hand
// its buffers back with [Chunk.Release].
func Chunks[T any](ctx context.Context, p *Pipeline) iter.Seq2[Chunk[T], error] {
	return chunks[T](ctx, p)
}

func chunks[T any](ctx context.Context, p *Pipeline) iter.Seq2[Chunk[T], error] {
	return func(yield func(Chunk[T], error) bool) {
		if err := checkIter[T](p); err != nil {
			yield(Chunk[T]{}, err)
			return
		}
		r, runCtx := newRunner(ctx)
		ch := make(chan Chunk[T], 4)
		env := p.env()
		env.obs = r.observe(ctx, p, "loop")
		r.guard(runCtx, "pipeline", func() { p.start(runCtx, r, env, chanOut[T]{ch: ch}) })
		var m *meter // the loop's, when observed
		if env.obs != nil {
			m = newMeter(env.obs, env.obs.sink().newSlot(), nil)
		}
		finished := false
		defer func() {
			// The loop was left early: by break or return, or by a panic
			// or runtime.Goexit in its body.
			if !finished {
				r.cancel(errStopped)
				r.wait(ctx)
			}
		}()
		for {
			c, ok, recvErr := recvMetered(runCtx, ch, m)
			if !ok {
				finished = true
				err := r.wait(ctx)
				if err == nil && recvErr != nil {
					// Cancelled with chunks still on their way: the stream
					// did not end, so say why.
					err = context.Cause(ctx)
					if err == nil {
						err = recvErr
					}
				}
				if err != nil {
					yield(Chunk[T]{}, err)
				}
				return
			}
			if m == nil {
				if !yield(c, nil) {
					return
				}
				continue
			}
			m.enter(c.Batch, c.Len())
			more := yield(c, nil)
			m.exit()
			if !more {
				return
			}
		}
	}
}

func checkIter[T any](p *Pipeline) error {
	if p.err != nil {
		return p.err
	}
	if p.sink.n != nil {
		return fmt.Errorf("flow: pipeline ends in sink %q; run it with Run", p.sink.n.info().Name)
	}
	info, out := p.last()
	if want := reflect.TypeFor[T](); out.typ() != want {
		return fmt.Errorf("flow: stage %q produces %v but the iterator takes %v", info.Name, out.typ(), want)
	}
	return nil
}
