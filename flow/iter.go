package flow

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"runtime"

	"github.com/rowflow/rowflow/rowid"
)

// Items runs p, which must have no sink and produce values of type T, and
// returns its items in order.
//
// The run starts when the loop starts and each loop runs p anew. Leaving
// the loop by break or return cancels the run and waits for all its
// goroutines before the loop statement completes, as reaching the end
// does. An error ends the sequence: it is yielded once, with a zero Item,
// as the last pair. If p's output type is not T, that error is the only
// pair.
//
// The iterator has no deferred call, so that the compiler can inline it
// and the loop body into the function holding the loop: a call per item
// costs about as much as a cheap pipeline's whole work per item. So a
// panic (or runtime.Goexit) in the loop body leaves the loop without
// stopping the run. If the panic is recovered, the run is cancelled once
// the garbage collector finds the loop's state unreachable, and its
// goroutines then exit. To stop it at once on a panic, use [Chunks] (one
// call per chunk, with a deferred stop) or a [CursorSet] closed with
// defer.
func Items[T any](ctx context.Context, p *Pipeline) iter.Seq2[Item[T], error] {
	return func(yield func(Item[T], error) bool) {
		r := openChunks[T](ctx, p)
		for r.next() {
			// The IDs are computed in the loop, in whichever form the
			// chunk holds them, so that a body that does not read them
			// does not pay for them.
			part, vals, ids := r.cur.Part, r.cur.Values, &r.cur.IDs
			switch {
			case r.s.tr != nil:
				if !yieldTracked(&r.cur, r.s.tr, yield) {
					r.close()
					return
				}
			case !ids.run:
				list := ids.list[:len(vals)]
				for k, v := range vals {
					if !yield(Item[T]{Part: part, ID: list[k], Value: v}, nil) {
						r.close()
						return
					}
				}
			default:
				comb, first, sel := ids.comb, ids.first, ids.sel
				for k, v := range vals {
					off := uint64(k)
					if sel != nil {
						off = uint64(sel[k])
					}
					if !yield(Item[T]{Part: part, ID: comb.Combine(rowid.Ordinal(first + off)), Value: v}, nil) {
						r.close()
						return
					}
				}
			}
		}
		if r.err != nil {
			yield(Item[T]{}, r.err)
		}
	}
}

// yieldTracked yields the items of c for a run a Tracker follows: the
// position moves past each item before the loop body sees it.
func yieldTracked[T any](c *Chunk[T], tr *Tracker, yield func(Item[T], error) bool) bool {
	for k := range c.Values {
		tr.delivered(c.Part, 1)
		if !yield(c.Item(k), nil) {
			return false
		}
	}
	return true
}

// Values is [Items] without partition numbers and IDs.
func Values[T any](ctx context.Context, p *Pipeline) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		r := openChunks[T](ctx, p)
		for r.next() {
			part, tr := r.cur.Part, r.s.tr
			for _, v := range r.cur.Values {
				if tr != nil {
					tr.delivered(part, 1)
				}
				if !yield(v, nil) {
					r.close()
					return
				}
			}
		}
		if r.err != nil {
			var zero T
			yield(zero, r.err)
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
		r := openChunks[T](ctx, p)
		defer r.close()
		for r.next() {
			c := r.cur
			r.cur = Chunk[T]{} // the loop body's now
			if tr := r.s.tr; tr != nil {
				tr.delivered(c.Part, c.Len())
			}
			if !yield(c, nil) {
				return
			}
		}
		if r.err != nil {
			yield(Chunk[T]{}, r.err)
		}
	}
}

// chunkReader reads a run chunk by chunk for the iterators. It reads p
// with a cursor set of one cursor: the cursor takes the last group's
// partitions straight from its workers, in partition order, so the loop's
// goroutine is the ordered merge and no goroutine stands between the
// workers and the loop. The iterators' loops stay small, so that the
// compiler can inline them, and the loop body, into the caller's range
// loop.
type chunkReader[T any] struct {
	s     *CursorSet[T]
	cur   Chunk[T] // the chunk the loop is on
	in    bool     // the loop's meter is inside cur
	ended bool
	err   error
	// stop cancels the run if the reader becomes unreachable before it
	// ended: a loop left by a recovered panic in its body.
	stop runtime.Cleanup
}

// openChunks starts a run of p, or returns a reader that reports why it
// cannot.
func openChunks[T any](ctx context.Context, p *Pipeline) *chunkReader[T] {
	if err := checkIter[T](p); err != nil {
		return &chunkReader[T]{ended: true, err: err}
	}
	if err := p.heldErr(); err != nil {
		return &chunkReader[T]{ended: true, err: err}
	}
	r := &chunkReader[T]{s: newCursorSet[T](ctx, p, 1, "loop")}
	r.stop = runtime.AddCleanup(r, (*CursorSet[T]).cancel, r.s)
	return r
}

// next releases the current chunk and moves to the next one. At the end
// it waits for the run and sets err.
func (r *chunkReader[T]) next() bool {
	if r.ended {
		return false
	}
	c := r.s.cursors[0]
	if r.in {
		c.m.exit()
		r.in = false
	}
	r.cur.Release()
	ch, ok := c.nextChunk(true)
	for ok && r.s.drop != nil && !dropBefore(r.s.drop, &ch) {
		if r.s.drop.over {
			// Past the position's epoch: nothing more to give. The run
			// is stopped as a loop left early stops it.
			r.ended = true
			r.stop.Stop()
			r.s.Close()
			return false
		}
		if err := r.s.drop.err; err != nil {
			// The checkpoint's position is not one the run reaches.
			r.ended = true
			r.stop.Stop()
			r.s.Close()
			r.err = err
			return false
		}
		ch, ok = c.nextChunk(true)
	}
	if !ok {
		r.ended = true
		r.stop.Stop()
		r.err = c.err
		if werr := r.s.wait(); r.err == nil {
			r.err = werr
		}
		if r.err == nil {
			r.err = r.s.drop.finish()
		}
		return false
	}
	r.cur = ch
	if c.m != nil {
		c.m.enter(ch.Part, ch.Len())
		r.in = true
	}
	return true
}

// close ends the run if the loop was left early: by break or return, or,
// for Chunks, by a panic or runtime.Goexit in its body.
func (r *chunkReader[T]) close() {
	if r.ended {
		return
	}
	r.ended = true
	r.stop.Stop()
	r.cur.Release()
	r.s.Close()
}

func checkIter[T any](p *Pipeline) error {
	if p.err != nil {
		return p.err
	}
	if p.sink.n != nil {
		return fmt.Errorf("flow: pipeline ends in sink %q; run it with Run", p.sink.n.info().Name)
	}
	if err := p.rankErr(); err != nil {
		return err
	}
	if err := p.resumeErr(); err != nil {
		return err
	}
	info, out := p.last()
	if want := reflect.TypeFor[T](); out.typ() != want {
		return fmt.Errorf("flow: stage %q produces %v but the iterator takes %v", info.Name, out.typ(), want)
	}
	return nil
}
