package flow

import "context"

// downstream is what a stage pushes into inside one goroutine: the next
// stage's link, a channel to another goroutine, or the sink. close ends the
// stream.
type downstream[T any] interface {
	Emitter[T]
	close(ctx context.Context) error
}

// link runs one processor in the goroutine of its caller and feeds its
// output to next. Consecutive stages with the same parallelism are fused
// into one chain of links, so a chunk passes through them as function calls.
type link[In, Out any] struct {
	name    string
	p       Processor[In, Out]
	next    downstream[Out]
	stopped bool     // this stage or one downstream of it has ended the stream
	down    lastPush // next's last error, so it is not wrapped twice
	m       *meter
	drop    *dropper // a resumed stage's input before its restart mark
	hist    *history // a followed stateful stage's states
	tr      *Tracker
}

func (l *link[In, Out]) meter() *meter { return l.m }

func (l *link[In, Out]) Push(ctx context.Context, c Chunk[In]) (err error) {
	if l.stopped {
		c.Release()
		return ErrStop
	}
	batch := c.Part
	defer func() {
		if r := recover(); r != nil {
			err = stageError(l.name, batch, true, recovered(r))
		}
	}()
	if l.drop != nil && !dropBefore(l.drop, &c) {
		if l.drop.over {
			l.down = lastPush{}
			return l.result(ctx, ErrStop, batch, true)
		}
		if l.drop.err != nil {
			return stageError(l.name, batch, true, l.drop.err)
		}
		return nil
	}
	l.down = lastPush{}
	if m := l.m; m != nil {
		m.enter(batch, c.Len())
		err = l.p.Process(ctx, c, (*linkOut[In, Out])(l))
		m.exit()
		return l.result(ctx, err, batch, true)
	}
	return l.result(ctx, l.p.Process(ctx, c, (*linkOut[In, Out])(l)), batch, true)
}

func (l *link[In, Out]) close(ctx context.Context) (err error) {
	if l.stopped {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = stageError(l.name, 0, false, recovered(r))
		}
	}()
	if err := l.drop.finish(); err != nil {
		return stageError(l.name, 0, false, err)
	}
	l.down = lastPush{}
	if l.m != nil {
		l.m.begin(0)
	}
	err = l.p.Flush(ctx, (*linkOut[In, Out])(l))
	if l.m != nil {
		l.m.exit()
	}
	if err := l.result(ctx, err, 0, false); err != nil {
		if err != ErrStop {
			return err
		}
		return nil
	}
	return l.next.close(ctx)
}

// result interprets what the processor returned.
func (l *link[In, Out]) result(ctx context.Context, err error, batch int64, hasBatch bool) error {
	switch {
	case err == nil:
		return nil
	case l.down.from(err):
		// Passed up from downstream: already attributed, or ErrStop after
		// downstream closed itself.
		if err == ErrStop {
			l.stopped = true
		}
		return err
	case err == ErrStop:
		// This stage ends the stream: downstream finishes normally.
		l.stopped = true
		if cerr := l.next.close(ctx); cerr != nil {
			return cerr
		}
		return ErrStop
	}
	return stageError(l.name, batch, hasBatch, err)
}

// linkOut is the Emitter a link's processor pushes to.
type linkOut[In, Out any] link[In, Out]

func (o *linkOut[In, Out]) Push(ctx context.Context, c Chunk[Out]) error {
	if o.hist != nil {
		part, n, end := c.Part, c.Len(), c.End
		err := o.send(ctx, c)
		if err == nil {
			o.tr.pushed(o.hist, part, n, end)
		}
		return err
	}
	return o.send(ctx, c)
}

func (o *linkOut[In, Out]) send(ctx context.Context, c Chunk[Out]) error {
	var err error
	if m := o.m; m != nil {
		err = m.push(c.Len(), func() error { return o.next.Push(ctx, c) })
	} else {
		err = o.next.Push(ctx, c)
	}
	return o.down.record(err)
}

// sinkLink feeds a Consumer. The consumer's Close is called by the run's
// owner once every goroutine has finished.
type sinkLink[T any] struct {
	name    string
	c       Consumer[T]
	stopped bool
	m       *meter
	drop    *dropper // what a resumed run had delivered
	tr      *Tracker
}

func (s *sinkLink[T]) meter() *meter { return s.m }

func (s *sinkLink[T]) Push(ctx context.Context, c Chunk[T]) (err error) {
	if s.stopped {
		c.Release()
		return ErrStop
	}
	batch := c.Part
	defer func() {
		if r := recover(); r != nil {
			err = stageError(s.name, batch, true, recovered(r))
		}
	}()
	if s.drop != nil && !dropBefore(s.drop, &c) {
		if s.drop.over {
			s.stopped = true
			return ErrStop
		}
		if s.drop.err != nil {
			return stageError(s.name, batch, true, s.drop.err)
		}
		return nil
	}
	n := c.Len()
	if m := s.m; m != nil {
		m.enter(batch, n)
		err = s.c.Consume(ctx, c)
		m.exit()
	} else {
		err = s.c.Consume(ctx, c)
	}
	if st, ok := err.(stopAfter); ok {
		n, err = min(max(st.n, 0), n), ErrStop
		if s.tr != nil && n > 0 {
			s.tr.delivered(batch, n)
		}
	} else if s.tr != nil && err == nil {
		s.tr.delivered(batch, n)
	}
	if err == ErrStop {
		s.stopped = true
	}
	return stageError(s.name, batch, true, err)
}

func (s *sinkLink[T]) close(context.Context) error {
	if s.stopped {
		return nil
	}
	if err := s.drop.finish(); err != nil {
		return stageError(s.name, 0, false, err)
	}
	return nil
}

// chanOut sends chunks to another goroutine; close closes the channel.
// failed, set before the channel is closed, is the error the stream
// failed with in band (see inBand): the reader returns it once it has
// taken the chunks sent before.
type chanOut[T any] struct {
	ch     chan Chunk[T]
	failed error
	closed bool
}

func (o *chanOut[T]) Push(ctx context.Context, c Chunk[T]) error {
	select {
	case o.ch <- c:
		return nil
	case <-ctx.Done():
		c.Release()
		return ctx.Err()
	}
}

func (o *chanOut[T]) close(context.Context) error {
	o.closed = true
	close(o.ch)
	return nil
}

// failInBand closes the channel with err for its reader.
func (o *chanOut[T]) failInBand(ctx context.Context, err error) (bool, error) {
	if o.closed {
		return false, nil
	}
	o.failed = err
	return true, o.close(ctx)
}
