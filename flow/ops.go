package flow

import (
	"context"
	"errors"
	"reflect"
)

var (
	errStopInParallel = errors.New("a stage running on several workers returned ErrStop; only serial stages may end the stream")
	errSourceStop     = errors.New("a source returned ErrStop; sources end the stream by running out of partitions")
)

// typeOps does, for one element type, the typed work that the untyped
// pipeline plan needs: channels, the workers' terminal, the merge and the
// dispatcher. It is called once per run or per partition, never per element.
type typeOps interface {
	typ() reflect.Type
	newChan(n int) any
	newTerminal(g *group) terminal
	merge(ctx context.Context, g *group, next any) error
	newDispatcher(g *group) any
	newChanOut(ch any) any
	forward(ctx context.Context, ch any, next any) error
}

// terminal is the end of a worker's chain: it sends the chain's output to
// the current task's channel.
type terminal interface {
	setTask(t *task)
	endTask(ctx context.Context) error
}

type ops[T any] struct{}

func opsOf[T any]() typeOps { return ops[T]{} }

func (ops[T]) typ() reflect.Type             { return reflect.TypeFor[T]() }
func (ops[T]) newChan(n int) any             { return make(chan Chunk[T], n) }
func (ops[T]) newChanOut(ch any) any         { return chanOut[T]{ch: ch.(chan Chunk[T])} }
func (ops[T]) newTerminal(g *group) terminal { return &taskOut[T]{g: g, weigh: weigher[T]()} }

// taskOut is a worker's terminal. It makes sure every partition ends with
// exactly one End chunk, even if a stage dropped it.
type taskOut[T any] struct {
	g         *group
	t         *task
	ch        chan Chunk[T]
	batch     int64
	ended     bool
	announced bool          // unordered: the merge knows the task
	weigh     func([]T) int // budget tokens a chunk of these values takes
}

func (o *taskOut[T]) setTask(t *task) {
	o.t, o.ch, o.batch, o.ended, o.announced = t, t.out.(chan Chunk[T]), t.batch, false, false
}

// announce tells an unordered merge about the task, once.
func (o *taskOut[T]) announce(ctx context.Context) error {
	if !o.g.unordered || o.announced {
		return nil
	}
	o.announced = true
	return o.g.announce(ctx, o.t)
}

func (o *taskOut[T]) Push(ctx context.Context, c Chunk[T]) error {
	if o.ended {
		// A stage pushed after the partition's End: keep the stream valid.
		if c.Len() == 0 {
			c.Release()
			return nil
		}
		c.End = true
	}
	c.Part = o.batch
	o.ended = c.End
	return o.send(ctx, c)
}

// send sends c to the task's channel. If the channel is full, an
// unordered merge is told about the task first, so that it drains it.
func (o *taskOut[T]) send(ctx context.Context, c Chunk[T]) error {
	if b := o.g.budget; b != nil {
		if err := b.acquire(ctx, o.t, o.weigh(c.Values)); err != nil {
			c.Release()
			return err
		}
	}
	select {
	case o.ch <- c:
		return nil
	default:
	}
	if err := o.announce(ctx); err != nil {
		c.Release()
		return err
	}
	return send(ctx, o.ch, c)
}

func (o *taskOut[T]) endTask(ctx context.Context) error {
	if !o.ended {
		if err := o.send(ctx, Chunk[T]{Part: o.batch, End: true}); err != nil {
			return err
		}
	}
	close(o.ch)
	return o.announce(ctx)
}

func (o *taskOut[T]) close(context.Context) error { return nil }

func (ops[T]) merge(ctx context.Context, g *group, next any) error {
	down := next.(downstream[T])
	m := meterOf(down)
	for {
		t, ok, err := recvMetered(ctx, g.schedule, m)
		if !ok {
			if err != nil {
				return err
			}
			return down.close(ctx)
		}
		if g.budget != nil {
			g.budget.setHead(t)
		}
		if err := forward(ctx, t.out.(chan Chunk[T]), down); err != nil {
			return err
		}
		if g.budget != nil {
			g.budget.release(t)
		}
	}
}

// forward pushes everything from ch into down until ch is closed.
func forward[T any](ctx context.Context, ch chan Chunk[T], down downstream[T]) error {
	if m := meterOf(down); m != nil {
		return forwardMetered(ctx, ch, down, m)
	}
	for {
		c, ok, err := recv(ctx, ch)
		if !ok {
			return err
		}
		if err := down.Push(ctx, c); err != nil {
			return err
		}
	}
}

// forwardMetered is forward counting the time spent waiting for ch as
// down's time blocked on input.
func forwardMetered[T any](ctx context.Context, ch chan Chunk[T], down downstream[T], m *meter) error {
	for {
		c, ok, err := recvMetered(ctx, ch, m)
		if !ok {
			return err
		}
		if err := down.Push(ctx, c); err != nil {
			return err
		}
	}
}

// dispatcher feeds a parallel group from a stream: each partition becomes
// a task whose chunks go through a channel of their own.
type dispatcher[T any] struct {
	g *group
	splitter[T]
}

func (ops[T]) newDispatcher(g *group) any {
	d := &dispatcher[T]{g: g}
	d.open = func(ctx context.Context, batch int64) (chan Chunk[T], error) {
		in := make(chan Chunk[T], taskBuffer)
		read := func(ctx context.Context, head any) error {
			return forward(ctx, in, head.(downstream[T]))
		}
		return in, g.submit(ctx, batch, read)
	}
	return d
}

// splitter cuts a stream into its partitions, each sent through a
// channel of its own, which open makes for a partition and hands on.
type splitter[T any] struct {
	open func(ctx context.Context, batch int64) (chan Chunk[T], error)
	cur  chan Chunk[T]
	b    int64
}

func (s *splitter[T]) Push(ctx context.Context, c Chunk[T]) error {
	if s.cur != nil && c.Part != s.b {
		s.end() // the partition ended without an End chunk
	}
	if s.cur == nil {
		ch, err := s.open(ctx, c.Part)
		if err != nil {
			c.Release()
			return err
		}
		s.cur, s.b = ch, c.Part
	}
	end := c.End
	if err := send(ctx, s.cur, c); err != nil {
		c.Release()
		return err
	}
	if end {
		s.end()
	}
	return nil
}

// end closes the current partition's channel, if any.
func (s *splitter[T]) end() {
	if s.cur != nil {
		close(s.cur)
		s.cur = nil
	}
}

func (d *dispatcher[T]) close(context.Context) error {
	d.end()
	d.g.finish()
	return nil
}
