package determinism

import (
	"context"
	"fmt"
	"iter"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// cursor walks one run's items, pulling chunks as it goes, and holds only
// the current chunk.
type cursor[T any] struct {
	next   func() (flow.Chunk[T], error, bool)
	stopFn func()
	chunk  flow.Chunk[T]
	k      int // the current item's index in chunk
	ended  bool
	err    error
}

// openCursor builds the pipeline for parallelism n. Its run starts with
// the first step.
func openCursor[T any](ctx context.Context, build func(int) *flow.Pipeline, n int) *cursor[T] {
	p := build(n)
	if p == nil {
		return &cursor[T]{ended: true, err: fmt.Errorf("determinism: build(%d) returned a nil pipeline", n)}
	}
	next, stop := iter.Pull2(flow.Chunks[T](ctx, p))
	return &cursor[T]{next: next, stopFn: stop, k: -1}
}

// step moves to the next item. It returns false once the run has ended or
// failed; err is then the run's error, if any.
func (c *cursor[T]) step() bool {
	if c.ended {
		return false
	}
	c.k++
	for c.k >= len(c.chunk.Values) {
		c.chunk.Release()
		ch, err, ok := c.next()
		if !ok || err != nil {
			c.ended, c.err = true, err
			return false
		}
		c.chunk, c.k = ch, 0
	}
	return true
}

func (c *cursor[T]) value() unsafe.Pointer { return unsafe.Pointer(&c.chunk.Values[c.k]) }
func (c *cursor[T]) batch() int64          { return c.chunk.Part }
func (c *cursor[T]) id() rowid.ID          { return c.chunk.IDs.At(c.k) }

// observe describes the current item, or the end of the run.
func (c *cursor[T]) observe() Observation {
	if c.ended {
		return Observation{Ended: true}
	}
	return Observation{Part: c.batch(), ID: c.id(), Value: c.chunk.Values[c.k]}
}

// stop ends the run, if it is still going, and waits for it.
func (c *cursor[T]) stop() {
	c.chunk.Release()
	if c.stopFn != nil {
		c.stopFn()
	}
}
