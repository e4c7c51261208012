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
	forward(ctx context.Context, out any, next any) error
}

// terminal is the end of a worker's chain: it sends the chain's output to
// the current task's channel.
type terminal interface {
	setTask(t *task)
	endTask(ctx context.Context) error
	failTask(ctx context.Context, err error) error
}

type ops[T any] struct{}

func opsOf[T any]() typeOps { return ops[T]{} }

func (ops[T]) typ() reflect.Type             { return reflect.TypeFor[T]() }
func (ops[T]) newChan(n int) any             { return make(chan Chunk[T], n) }
func (ops[T]) newChanOut(ch any) any         { return &chanOut[T]{ch: ch.(chan Chunk[T])} }
func (ops[T]) newTerminal(g *group) terminal { return &taskOut[T]{g: g, weigh: weigher[T]()} }

// taskOut is a worker's terminal. It makes sure every partition ends with
// exactly one End chunk, its last, even if a stage dropped it or pushed
// after it: it holds back a chunk with End until the task ends, since the
// merge hands the task's channel on to another task once it has the End.
type taskOut[T any] struct {
	g         *group
	t         *task
	ch        chan Chunk[T]
	batch     int64
	held      Chunk[T]      // the chunk with End, once a stage has pushed it
	announced bool          // unordered: the merge knows the task
	weigh     func([]T) int // budget tokens a chunk of these values takes
}

func (o *taskOut[T]) setTask(t *task) {
	o.t, o.ch, o.batch, o.held, o.announced = t, t.out.(chan Chunk[T]), t.batch, Chunk[T]{}, false
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
	c.Part = o.batch
	if o.held.End {
		// A stage pushed after the partition's End: the held chunk was
		// not the last after all.
		held := o.held
		o.held, held.End = Chunk[T]{}, false
		if held.Len() == 0 {
			held.Release()
		} else if err := o.send(ctx, held); err != nil {
			c.Release()
			return err
		}
	}
	if c.End {
		o.held = c
		return nil
	}
	return o.send(ctx, c)
}

// send sends c to the task's channel. If the channel is full, an
// unordered merge is told about the task first, so that it drains it.
func (o *taskOut[T]) send(ctx context.Context, c Chunk[T]) error {
	w := o.weigh(c.Values)
	if b := o.g.budget; b != nil {
		if err := b.acquire(ctx, o.t, w); err != nil {
			c.Release()
			return err
		}
	}
	if err := o.t.room.put(ctx, w, o.announce); err != nil {
		c.Release()
		return err
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

// endTask sends the partition's End chunk, the last the task's channel
// carries: the merge takes the End for the end of the task.
func (o *taskOut[T]) endTask(ctx context.Context) error {
	last := o.held
	o.held = Chunk[T]{}
	if !last.End {
		last = Chunk[T]{Part: o.batch, End: true}
	}
	if err := o.send(ctx, last); err != nil {
		return err
	}
	return o.announce(ctx)
}

// failTask ends the task with err (see task.err): it drops the End chunk
// held back, if any, and sends an empty one after setting the error.
func (o *taskOut[T]) failTask(ctx context.Context, err error) error {
	o.held.Release()
	o.held = Chunk[T]{}
	o.t.err = err
	return o.send(ctx, Chunk[T]{Part: o.batch, End: true})
}

func (o *taskOut[T]) close(context.Context) error { return nil }

func (ops[T]) merge(ctx context.Context, g *group, next any) error {
	down := next.(downstream[T])
	weigh := weigher[T]()
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
		ended, err := forwardPartition(ctx, t.out.(chan Chunk[T]), down, t.room, weigh, &t.err)
		if err != nil {
			return err
		}
		if ended {
			g.recycleOut(t.out)
		}
		if g.budget != nil {
			g.budget.release(t)
		}
	}
}

// forward pushes everything from ch into down until ch is closed.
func forward[T any](ctx context.Context, ch chan Chunk[T], down downstream[T]) error {
	for {
		ended, err := forwardPartition[T](ctx, ch, down, nil, nil, nil)
		if err != nil || !ended {
			return err
		}
	}
}

// forwardPartition pushes the chunks of one partition from ch into down,
// up to and including the one with End, and reports whether it met it.
// The sender sends nothing after the End, so ch is then empty and may
// carry another partition. Before an End, a closed ch also ends the
// partition. Each chunk's tokens, which weigh gives, are taken out of
// ch's room r. If failed is not nil, the End of a partition that failed
// is not pushed: the error its sender set in *failed before sending the
// End is returned.
func forwardPartition[T any](ctx context.Context, ch chan Chunk[T], down downstream[T], r room, weigh func([]T) int, failed *error) (bool, error) {
	m := meterOf(down)
	for {
		c, ok, err := recvMetered(ctx, ch, m)
		if !ok {
			return false, err
		}
		if r != nil {
			r.take(weigh(c.Values))
		}
		end := c.End
		if end && failed != nil && *failed != nil {
			c.Release()
			return false, *failed
		}
		if err := down.Push(ctx, c); err != nil {
			return false, err
		}
		if end {
			return true, nil
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
	d.weigh = weigher[T]()
	d.open = func(ctx context.Context, batch int64) (chan Chunk[T], room, *error, error) {
		in, r, failed := g.inChan().(chan Chunk[T]), newRoom(g.n), new(error)
		read := func(ctx context.Context, head any) error {
			ended, err := forwardPartition(ctx, in, head.(downstream[T]), r, d.weigh, failed)
			if ended && err == nil {
				g.recycleIn(in)
			}
			return err
		}
		return in, r, failed, g.submit(ctx, batch, read)
	}
	return d
}

// splitter cuts a stream into its partitions, each sent through a
// channel of its own, which open makes for a partition and hands on.
// Each partition's last chunk on its channel has End, and nothing follows
// it: the reader takes the End for the end of the partition. If open
// gives the channel a room, each chunk's tokens, which weigh gives, are
// put in it before the chunk is sent. The error open gives is where fail
// sets the partition's failure before its End.
type splitter[T any] struct {
	open   func(ctx context.Context, batch int64) (chan Chunk[T], room, *error, error)
	weigh  func([]T) int
	cur    chan Chunk[T]
	room   room
	failed *error
	b      int64
	opened bool // a partition has been opened: b is its batch
	closed bool // the stream has ended, or failed in band
}

func (s *splitter[T]) Push(ctx context.Context, c Chunk[T]) error {
	if s.cur != nil && c.Part != s.b {
		if err := s.end(ctx); err != nil { // the partition ended without an End chunk
			c.Release()
			return err
		}
	}
	if s.cur == nil {
		if err := s.start(ctx, c.Part); err != nil {
			c.Release()
			return err
		}
	}
	end := c.End
	if err := s.send(ctx, c); err != nil {
		c.Release()
		return err
	}
	if end {
		s.cur = nil
	}
	return nil
}

// start opens the channel of partition b.
func (s *splitter[T]) start(ctx context.Context, b int64) error {
	ch, r, failed, err := s.open(ctx, b)
	if err != nil {
		return err
	}
	s.cur, s.room, s.failed, s.b, s.opened = ch, r, failed, b, true
	return nil
}

// end ends the current partition, if any, with an empty End chunk: its
// last chunk had no End.
func (s *splitter[T]) end(ctx context.Context) error {
	if s.cur == nil {
		return nil
	}
	err := s.send(ctx, Chunk[T]{Part: s.b, End: true})
	s.cur = nil
	return err
}

// failInBand ends the stream in band with err (see inBand), unless it has
// ended already: the partition open, or if none a partition after the
// last, ends with err, which its reader returns where it meets the End,
// after the chunks sent before. closeStream then closes the stream, as
// its end does, without ending it.
func (s *splitter[T]) failInBand(ctx context.Context, err error, closeStream func()) (bool, error) {
	if s.closed {
		return false, nil
	}
	s.closed = true
	ferr := s.fail(ctx, err)
	closeStream()
	return true, ferr
}

func (s *splitter[T]) fail(ctx context.Context, err error) error {
	if s.cur == nil {
		b := s.b
		if s.opened {
			b++
		}
		if err := s.start(ctx, b); err != nil {
			return err
		}
	}
	*s.failed = err
	return s.end(ctx)
}

// send sends c on the current partition's channel, its tokens first.
func (s *splitter[T]) send(ctx context.Context, c Chunk[T]) error {
	if s.room != nil {
		if err := s.room.put(ctx, s.weigh(c.Values), nil); err != nil {
			return err
		}
	}
	return send(ctx, s.cur, c)
}

func (d *dispatcher[T]) close(ctx context.Context) error {
	if err := d.end(ctx); err != nil {
		return err
	}
	d.closed = true
	d.g.finish()
	return nil
}

// failInBand hands err to an ordered group in band (see inBand); the
// run of an unordered group, or of one that several cursors read, fails
// at once.
func (d *dispatcher[T]) failInBand(ctx context.Context, err error) (bool, error) {
	if d.g.failsAtOnce() {
		return false, nil
	}
	return d.splitter.failInBand(ctx, err, d.g.finish)
}
