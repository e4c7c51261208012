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

func (t takeOp[T]) Info() flow.Info {
	return flow.Info{Name: "take", Serial: "it counts values across partitions", Settings: fmt.Sprintf("n=%d", t.n)}
}

func (t takeOp[T]) NewProcessor(env flow.Env) flow.Processor[T, T] {
	p := &takeProc[T]{left: t.n}
	r, err := resumeState[takeState]("take", env)
	if err == nil && r != nil && (r.Left < 0 || r.Left > t.n || r.From.Part < 0 || r.From.Row < 0) {
		err = fmt.Errorf("operators: take: resume state %+v does not fit Take(%d)", *r, t.n)
	}
	if err != nil {
		return failed[T, T]{err}
	}
	if r != nil {
		p.left = r.Left
		p.in.part, p.in.row, p.in.started = r.From.Part, r.From.Row, true
	}
	return p
}

// takeState is what [Take]'s processor reports in a checkpoint (see
// flow.Checkpointer) and resumes from (flow.Env.Resume): how many values
// it still passes on, and where its input stood.
type takeState struct {
	Left int64
	From flow.Mark
}

type takeProc[T any] struct {
	left int64
	in   inCursor
	passThrough[T]
}

func (p *takeProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	if p.left == 0 {
		c.Release()
		return flow.ErrStop
	}
	at := p.in.at(c.Part)
	if int64(len(c.Values)) < p.left {
		p.left -= int64(len(c.Values))
		p.in.advance(at, len(c.Values), c.End)
		return out.Push(ctx, c)
	}
	// This chunk reaches the count: it closes its partition and the stream.
	n := int(p.left)
	p.left = 0
	c.Values = c.Values[:n]
	c.IDs = c.IDs.Slice(0, n)
	c.End = true
	p.in.advance(at, n, true)
	if err := out.Push(ctx, c); err != nil {
		return err
	}
	return flow.ErrStop
}

// Checkpoint reports how many values the stage still passes on after the
// chunks it has pushed, and the next row of its input.
func (p *takeProc[T]) Checkpoint() (any, flow.Mark) {
	s := &takeState{Left: p.left, From: p.in.next()}
	return s, s.From
}
