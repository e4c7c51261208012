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
		r := openChunks[T](ctx, p)
		defer r.close()
		for r.next() {
			if tr := r.s.tr; tr != nil {
				if !yieldTracked(&r.cur, tr, yield) {
					return
				}
				continue
			}
			if !yieldItems(&r.cur, yield) {
				return
			}
		}
		if r.err != nil {
			yield(Item[T]{}, r.err)
		}
	}
}

// yieldItems yields the items of c, and reports false if yield did. It
// takes the IDs in whichever form c holds them, without [IDs.At]'s
// checks per item.
func yieldItems[T any](c *Chunk[T], yield func(Item[T], error) bool) bool {
	ids, b := &c.IDs, c.Part
	switch {
	case !ids.run:
		list := ids.list[:len(c.Values)]
		for k, v := range c.Values {
			if !yield(Item[T]{Part: b, ID: list[k], Value: v}, nil) {
				return false
			}
		}
	case ids.sel == nil:
		comb, first := ids.comb, ids.first
		for k, v := range c.Values {
			if !yield(Item[T]{Part: b, ID: comb.Combine(rowid.Ordinal(first + uint64(k))), Value: v}, nil) {
				return false
			}
		}
	default:
		comb, first, sel := ids.comb, ids.first, ids.sel[:len(c.Values)]
		for k, v := range c.Values {
			if !yield(Item[T]{Part: b, ID: comb.Combine(rowid.Ordinal(first + uint64(sel[k]))), Value: v}, nil) {
				return false
			}
		}
	}
	return true
}

// yieldTracked is yieldItems for a run a Tracker follows: the position
// moves past each item before the loop body sees it.
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
		defer r.close()
		for r.next() {
			if tr := r.s.tr; tr != nil {
				for _, v := range r.cur.Values {
					tr.delivered(r.cur.Part, 1)
					if !yield(v, nil) {
						return
					}
				}
				continue
			}
			for _, v := range r.cur.Values {
				if !yield(v, nil) {
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
// partitions straight from its workers, in batch order, so the loop's
// goroutine is the ordered merge and no goroutine stands between the
// workers and the loop. The iterators' loops stay small, so that the
// compiler can inline them into the caller's range loop.
type chunkReader[T any] struct {
	s     *CursorSet[T]
	cur   Chunk[T] // the chunk the loop is on
	in    bool     // the loop's meter is inside cur
	ended bool
	err   error
}

// openChunks starts a run of p, or returns a reader that reports why it
// cannot.
func openChunks[T any](ctx context.Context, p *Pipeline) *chunkReader[T] {
	if err := checkIter[T](p); err != nil {
		return &chunkReader[T]{ended: true, err: err}
	}
	return &chunkReader[T]{s: newCursorSet[T](ctx, p, 1, "loop")}
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
		ch, ok = c.nextChunk(true)
	}
	if !ok {
		r.ended = true
		r.err = c.err
		if werr := r.s.wait(); r.err == nil {
			r.err = werr
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

// close ends the run if the loop was left early: by break or return, or
// by a panic or runtime.Goexit in its body.
func (r *chunkReader[T]) close() {
	if r.ended {
		return
	}
	r.ended = true
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
	if err := p.resumeErr(); err != nil {
		return err
	}
	info, out := p.last()
	if want := reflect.TypeFor[T](); out.typ() != want {
		return fmt.Errorf("flow: stage %q produces %v but the iterator takes %v", info.Name, out.typ(), want)
	}
	return nil
}
