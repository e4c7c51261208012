package flow

import "context"

// startBuffer puts a channel of op's Info().Buffer chunks in front of
// head, the chain that starts with op, and starts the goroutine that
// feeds head from it. It returns the downstream the stages upstream push
// into, and the context they run under: cancelled with errStopped if the
// chain ends the stream.
func startBuffer(ctx context.Context, r *runner, op opNode, head any) (any, context.Context) {
	in := op.inOps()
	ch := in.newChan(op.info().Buffer)
	upCtx, stopUp := context.WithCancelCause(ctx)
	r.goroutine(ctx, func() error {
		err := in.forward(ctx, ch, head)
		if err == ErrStop {
			stopUp(errStopped)
			return nil
		}
		return err
	})
	return in.newChanOut(ch), upCtx
}

// forward feeds next, a downstream[T], from ch, a chan Chunk[T], and
// closes next when ch is closed.
func (ops[T]) forward(ctx context.Context, ch any, next any) error {
	down := next.(downstream[T])
	c := ch.(chan Chunk[T])
	if err := forward(ctx, c, down); err != nil {
		return err
	}
	return down.close(ctx)
}
