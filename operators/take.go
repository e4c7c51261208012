package operators

import (
	"context"

	"github.com/rowflow/rowflow/flow"
)

// Take returns a stage that passes on the first n values of the stream and
// then ends it: the stages upstream are cancelled and read no further, and
// the run succeeds. Take counts across partitions, so it is serial.
// It panics if n is negative.
func Take[T any](n int64) flow.Stage {
	if n < 0 {
		panic("operators: Take of a negative count")
	}
	return flow.NewStage[T, T](takeOp[T]{n: n})
}

type takeOp[T any] struct{ n int64 }

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
