package flow

import "context"

// startBuffer puts a channel of op's Info().Buffer chunks in front of
// head, the chain that starts with op and ends in term, and starts the
// goroutine that feeds head from it. It returns the downstream the stages
// upstream push into, and the context they run under: cancelled with
// errStopped if the chain ends the stream or fails in band.
func startBuffer(ctx context.Context, r *runner, op opNode, head, term any) (any, context.Context) {
	in := op.inOps()
	out := in.newChanOut(in.newChan(op.info().Buffer))
	upCtx, stopUp := context.WithCancelCause(ctx)
	r.goroutine(ctx, func() error {
		return settle(ctx, term, in.forward(ctx, out, head), stopUp)
	})
	return out, upCtx
}

// forward feeds next, a downstream[T], from the channel of out, a
// *chanOut[T], and closes next when the channel is closed; if the stream
// failed in band, it returns the error instead.
func (ops[T]) forward(ctx context.Context, out any, next any) error {
	down := next.(downstream[T])
	o := out.(*chanOut[T])
	if err := forward(ctx, o.ch, down); err != nil {
		return err
	}
	if o.failed != nil {
		return o.failed
	}
	return down.close(ctx)
}
