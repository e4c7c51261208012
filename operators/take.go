package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
)

// Take returns a stage that passes on the first n values of the stream and
// then ends it: the stages upstream are cancelled and read no further, and
// the run succeeds. Take counts across partitions, so it is serial.
// A negative n is kept as the stage's error and fails the pipeline.
func Take[T any](n int64) flow.Stage {
	return flow.NewStage[T, T](takeOp[T]{n: n})
}

type takeOp[T any] struct{ n int64 }

// Err reports a negative count.
func (t takeOp[T]) Err() error {
	if t.n < 0 {
		return fmt.Errorf("operators: Take(%d): the count must be at least 0", t.n)
	}
	return nil
}

func (takeOp[T]) Info() flow.Info {
	return flow.Info{Name: "take", Serial: "it counts values across partitions"}
}

func (t takeOp[T]) NewProcessor(flow.Env) flow.Processor[T, T] {
	return &takeProc[T]{left: t.n}
}

type takeProc[T any] struct {
	left int64
	passThrough[T]
}

func (p *takeProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	if p.left == 0 {
		c.Release()
		return flow.ErrStop
	}
	if int64(len(c.Values)) < p.left {
		p.left -= int64(len(c.Values))
		return out.Push(ctx, c)
	}
	// This chunk reaches the count: it closes its partition and the stream.
	n := int(p.left)
	p.left = 0
	c.Values = c.Values[:n]
	c.IDs = c.IDs.Slice(0, n)
	c.End = true
	if err := out.Push(ctx, c); err != nil {
		return err
	}
	return flow.ErrStop
}
