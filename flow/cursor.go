package flow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
)

// ErrCursorSetClosed is the error a cursor's [Cursor.All] yields when
// its set was closed before the cursor reached the end of the stream.
var ErrCursorSetClosed = errors.New("flow: cursor set closed")

// CursorSet is one run of a pipeline read by several cursors at once, as
// ML.NET's GetRowCursorSet hands a data view to n consumers: n training
// threads, n writers. Make one with [Cursors].
//
// The cursors share the run's partitions: a cursor that needs more items
// takes the next partition in order that no cursor has taken, and keeps it
// to its end. So
//
//   - the partition numbers one cursor yields never decrease;
//   - no partition number appears in two cursors;
//   - collecting the items of every cursor with their partition numbers and
//     stable-sorting them by partition number gives exactly the serial
//     stream of the pipeline, and [CursorSet.Consolidate] gives that
//     stream directly.
//
// Which cursor gets which partition depends on when each asks; the items
// of each partition, and so the consolidated stream, do not.
//
// When the pipeline's last stage runs on several workers, each cursor
// reads the partition it holds straight from the worker that produces it:
// a slow cursor holds back only its own partition's worker. When the last
// stage is serial, its output is handed out partition by partition, and
// the stage waits while the partition it is producing is full.
//
// A run followed by a [Tracker] ([Pipeline.Checkpoints]) has a position
// at any moment: everything its cursors had handed out (yielded by
// [Cursor.All]) and nothing else. Take it with [Tracker.Checkpoint],
// typically at a training step's barrier, when no cursor is fetching its
// next item: each is in the body of its loop over All (or between calls
// of the function [iter.Pull2] returns for it), or has ended. A set
// started from it ([Pipeline.Resume]) hands out each item not handed out
// before exactly once: with as many cursors as before, cursor i first
// gives the rest of the partition cursor i held, so each cursor's own
// sequence goes on where it stopped; with another number, the partitions
// that were partly handed out go first. Either way, the items handed out
// before and after, stable-sorted by partition number, are the serial
// stream. A set of an Unordered stage has no such position: its tracker's
// Checkpoint fails.
//
// A CursorSet and its cursors are single-use. Each cursor belongs to one
// goroutine at a time; different cursors, and [CursorSet.Close], may be
// used from different goroutines.
type CursorSet[T any] struct {
	r *runner
	// parent and run are the context given to Cursors and the run's own
	// context, kept to tell why the run was cancelled.
	parent, run context.Context
	feed        *cursorFeed[T]
	cursors     []*Cursor[T]
	drop        *dropper      // what a resumed run had delivered
	tr          *Tracker      // follows the run for the iterators
	weigh       func([]T) int // the room tokens of a chunk from a worker's task

	closed  atomic.Bool
	mu      sync.Mutex
	open    int // cursors that have not ended
	waited  sync.Once
	waitErr error
	// located adds the row's location to a run's error (Pipeline.located).
	located func(error) error
	// track follows what the cursors handed out, for a Tracker; res is
	// what a resumed set drops, and rt hands the partitions the cursors
	// held back to them.
	track *setTrack
	res   *setResume
	rt    *router
	recv  chan struct{} // see receive
}

// Cursors starts a run of p, which must have no sink and produce values of
// type T, and returns n cursors over it. It returns an error, and starts
// nothing, if p was built with a mistake, ends in a sink, produces another
// type, starts at a position made by [At] (found in the serial stream:
// read it with Items), or n < 1. A p with Checkpoints is followed as
// [CursorSet] describes; a p with Resume starts where the checkpoint's
// cursors stopped.
//
// The run's goroutines belong to the set: they have all returned once
// every cursor has ended (read to its end, or closed: by leaving the loop
// over its [Cursor.All], or with [Cursor.Close]), or once
// [CursorSet.Close] has returned. Call Close when done with the
// set, typically with defer.
//
// A cursor set with n = 1 is the serial stream, as [Items] gives it.
func Cursors[T any](ctx context.Context, p *Pipeline, n int) (*CursorSet[T], error) {
	if err := checkIter[T](p); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("flow: Cursors(%d): need at least 1 cursor", n)
	}
	if p.seek != nil {
		return nil, fmt.Errorf("flow: Cursors: a position made by At is found in the serial stream; resume Items, Values, Chunks or Run from it, or a cursor set from a checkpoint a Tracker took of one")
	}
	s := newCursorSet[T](ctx, p, n, "cursors")
	if ck := p.resume; ck != nil {
		s.res = newSetResume(ck, p.resume.stages)
		if ck.cursors == n && n > 1 {
			s.rt = newRouter(ck, n)
		}
	}
	if p.tracker != nil {
		s.track = newSetTrack(p.tracker, n, p.resume)
	}
	if s.track != nil || s.res != nil {
		s.recv = make(chan struct{}, 1)
	}
	return s, nil
}

// newCursorSet starts a run of p read by n cursors. The cursors count
// their work as the stage named sink when the run is observed.
func newCursorSet[T any](ctx context.Context, p *Pipeline, n int, sink string) *CursorSet[T] {
	r, runCtx := newRunner(ctx)
	s := &CursorSet[T]{r: r, parent: ctx, run: runCtx, open: n, weigh: weigher[T](),
		feed: newCursorFeed[T](n)}
	env := p.env()
	env.ck = p.newRunCk(env)
	// A run's error reaches the set's wait and the cursors it ends; the
	// source locates its row once.
	var locMu sync.Mutex
	var locIn, locOut error
	s.located = func(err error) error {
		locMu.Lock()
		defer locMu.Unlock()
		if err == nil || err != locIn {
			locIn, locOut = err, p.located(ctx, env, err)
		}
		return locOut
	}
	s.drop, s.tr = env.ck.consumerDrop(), env.ck.consumerTracker()
	env.obs = r.observe(ctx, p, sink)
	r.guard(runCtx, "pipeline", func() { p.start(runCtx, r, env, s.feed) })
	for i := range n {
		c := &Cursor[T]{s: s, k: -1, i: i}
		if env.obs != nil {
			c.m = newMeter(env.obs, env.obs.sink().newSlot(), nil)
		}
		s.cursors = append(s.cursors, c)
	}
	return s
}

// Cursors returns the set's cursors. The slice is the caller's; the
// cursors are the set's.
func (s *CursorSet[T]) Cursors() []*Cursor[T] {
	return append([]*Cursor[T](nil), s.cursors...)
}

// Close ends the run: it cancels what is still running and waits for
// every goroutine of the run. Cursors that had not ended yield
// [ErrCursorSetClosed] from then on, as the last pair of their All. Close
// returns the run's error if the run had failed, and nil if it ended
// normally or was cut short by Close. Calling Close again returns the
// same.
func (s *CursorSet[T]) Close() error {
	s.cancel()
	return s.wait()
}

// wait waits for the run once and keeps its error.
func (s *CursorSet[T]) wait() error {
	s.waited.Do(func() { s.waitErr = s.located(s.r.wait(s.parent)) })
	return s.waitErr
}

// ended counts a cursor out; the last one stops the run, which nothing
// reads any more (a cursor closed before the stream's end leaves it
// running), and waits for it.
func (s *CursorSet[T]) ended() {
	s.mu.Lock()
	s.open--
	last := s.open == 0
	s.mu.Unlock()
	if last {
		s.r.g.Cancel(errStopped)
		s.wait()
	}
}

// cause says why the run's context is done: the run's error, the parent
// context's, or ErrCursorSetClosed after Close. A set that a source reads
// its inputs with (Concat, Mix, a cache's first pass) runs under the
// enclosing run's context; when a stage of that run stops the stream, the
// set's run is stopped with it and reports the parent's context error,
// which the enclosing run expects.
func (s *CursorSet[T]) cause() error {
	err := context.Cause(s.run)
	switch {
	case err == errStopped && !s.closed.Load() && s.parent.Err() != nil:
		return s.parent.Err()
	case err == errStopped:
		return ErrCursorSetClosed
	case isContextErr(err) && s.parent.Err() != nil:
		return context.Cause(s.parent)
	}
	return err
}

// Consolidate returns the set's stream in serial order, as [Items] would
// give it: it reads the cursors itself, one partition at a time, always
// taking the lowest partition any cursor holds. Use it instead of the
// cursors, not alongside them, on a fresh set. Leaving the loop early
// closes the set; an error is yielded once, as the last pair. Of a run
// that fails, a set of several cursors may give fewer of the items
// before the error than Items (see [Cursor.All]).
func (s *CursorSet[T]) Consolidate() iter.Seq2[Item[T], error] {
	return func(yield func(Item[T], error) bool) {
		s.rt = nil // the partitions in order, not each back to its cursor
		next := 0  // the cursor that takes the next partition when none holds one
		for {
			var low *Cursor[T]
			for _, c := range s.cursors {
				if c.holding() && (low == nil || c.batch < low.batch) {
					low = c
				}
			}
			if low == nil {
				if !s.takeNext(&next) {
					break
				}
				continue
			}
			for low.step(false) {
				if !yield(low.item, nil) {
					s.Close()
					return
				}
			}
			if low.err != nil {
				break // the stream ends here, whatever the other cursors hold
			}
		}
		for _, c := range s.cursors {
			if c.err != nil {
				yield(Item[T]{}, c.err)
				return
			}
		}
	}
}

// takeNext has the first open cursor from *next on take a partition. It
// reports false when every cursor has ended, or when one ends with an
// error.
func (s *CursorSet[T]) takeNext(next *int) bool {
	for range s.cursors {
		c := s.cursors[*next%len(s.cursors)]
		*next++
		if !c.done && c.takePartition() {
			return true
		}
		if c.err != nil {
			return false
		}
	}
	return false
}

// Cursor reads the partitions of a [CursorSet] that it takes, one item at
// a time, through [Cursor.All]:
//
//	for it, err := range c.All() {
//		if err != nil { … }
//		…
//	}
//
// A consumer that reads a cursor a few items at a time (a training step's
// share, then a barrier) pulls them from the same sequence:
//
//	next, stop := iter.Pull2(c.All())
//	defer stop() // closes the cursor, as leaving a loop over All does
//	it, err, ok := next()
//
// Once it has ended, a cursor never restarts and never panics.
type Cursor[T any] struct {
	s     *CursorSet[T]
	i     int           // its index in the set
	t     *task         // the partition being read; nil between partitions
	ch    chan Chunk[T] // its channel
	batch int64         // its partition number
	m     *meter        // when the run is observed
	in    bool          // m is inside c's current chunk
	c     Chunk[T]      // the chunk being read
	k     int           // the index of the current item in c
	item  Item[T]
	done  bool
	err   error
	// closing: Close is dropping the rest of the partition c holds, and
	// a failure in it is not c's to report.
	closing bool
	pt      *partTrack // the partition's progress, in a followed run
	cut     cut        // what a resumed set drops of the partition
}

// Close ends the cursor: it takes no more partitions, and the rest of the
// partition it holds is read and dropped, so that the worker producing it
// can go on (Close returns once that partition is finished). The other
// cursors carry on with the remaining partitions. A loop over
// [Cursor.All] whose body calls Close ends at its next item, without an
// error. Closing an ended cursor does nothing.
func (c *Cursor[T]) Close() {
	if c.done {
		return
	}
	c.closing = true
	for c.ch != nil {
		select {
		case ch, ok := <-c.ch:
			c.received(ch, ok)
			ch.Release()
		case <-c.s.run.Done():
			c.t, c.ch = nil, nil
		}
	}
	c.end(nil)
}

// All returns the cursor's items as a sequence: an item is handed out
// when All yields it, and the cursor takes the next partition when the
// one it holds ends. The sequence ends at the end of the stream, after
// [Cursor.Close], or with an error, yielded once as the last pair:
//
//   - the run's error if the run failed;
//   - [ErrCursorSetClosed] if the set was closed first;
//   - the context's cause if the context given to [Cursors] was cancelled.
//
// A stage's error in a partition fails the run when the cursor that holds
// the partition reaches the failing row, as a serial run would: that
// cursor yields it, and so do the cursors waiting for input then. A
// cursor that finds no partition left to take ends without an error, even
// if a partition that another cursor still reads fails later;
// [CursorSet.Close] returns the run's error whichever cursor met it.
// That holds for an error of the last stage's workers when it runs on
// several, and for every error when the set has one cursor. With several
// cursors, an error before the last parallel stage, or of a serial last
// stage, fails the run at once, where it happens: the cursors may yield it
// before items of earlier partitions that the run had not handed out yet.
//
// Leaving the loop early closes the cursor. Like the cursor, the sequence
// is single-use: ranged over again once the cursor has ended, it yields
// no item, only the cursor's error again, if it had one.
func (c *Cursor[T]) All() iter.Seq2[Item[T], error] {
	return func(yield func(Item[T], error) bool) {
		for c.step(true) {
			if !yield(c.item, nil) {
				c.Close()
				return
			}
		}
		if c.err != nil {
			yield(Item[T]{}, c.err)
		}
	}
}

// holding reports whether c holds a partition it has not finished.
func (c *Cursor[T]) holding() bool {
	return !c.done && (c.ch != nil || c.k+1 < len(c.c.Values))
}

// step advances c to its next item; with more false, only within the
// partition it holds.
func (c *Cursor[T]) step(more bool) bool {
	for !c.done {
		if c.s.closed.Load() {
			c.end(ErrCursorSetClosed)
			break
		}
		if c.k+1 < len(c.c.Values) {
			c.k++
			c.item = c.c.Item(c.k)
			if c.pt != nil {
				c.pt.n.Add(1)
			}
			return true
		}
		if c.in {
			c.m.exit()
			c.in = false
		}
		c.c.Release()
		c.k = -1
		if c.pt != nil && c.ch == nil {
			c.s.track.left(c.pt, true) // every item of it handed out
			c.pt = nil
		}
		if c.ch == nil && !more {
			return false
		}
		ch, ok := c.nextChunk(more)
		if !ok {
			return false
		}
		c.c = ch
		if c.m != nil {
			c.m.enter(ch.Part, ch.Len())
			c.in = true
		}
	}
	return false
}

// nextChunk returns c's next chunk, which becomes the caller's; with more
// false, only from the partition c holds. It reports false at the end.
func (c *Cursor[T]) nextChunk(more bool) (Chunk[T], bool) {
	for !c.done {
		if c.s.closed.Load() {
			c.end(ErrCursorSetClosed)
			break
		}
		if c.ch == nil && (!more || !c.takePartition()) {
			break
		}
		select { // a chunk already waiting costs no select on the run
		case ch, ok := <-c.ch:
			if c.received(ch, ok) && c.keep(&ch) {
				return ch, true
			}
			continue
		default:
			if c.m != nil {
				c.m.flush()
			}
		}
		t := c.now()
		select {
		case ch, ok := <-c.ch:
			c.waited(t)
			if c.received(ch, ok) && c.keep(&ch) {
				return ch, true
			}
		case <-c.s.run.Done():
			c.waited(t)
			c.end(c.s.cause())
		}
	}
	return Chunk[T]{}, false
}

// received handles a receive of ch from the partition's channel: it
// reports whether a chunk came, and ends the partition after its End
// chunk (nothing follows it on the channel) or when the channel is
// closed. The End of a partition that failed in its worker (see
// task.err) fails the run and ends c with the error, unless c is being
// closed.
func (c *Cursor[T]) received(ch Chunk[T], ok bool) bool {
	if ok && c.t.room != nil {
		c.t.room.take(c.s.weigh(ch.Values))
	}
	if ok && !ch.End {
		return true
	}
	if b := c.s.feed.budget; b != nil {
		b.release(c.t)
	}
	t := c.t
	c.t, c.ch = nil, nil
	if ok && t.err != nil && !c.closing {
		ch.Release()
		c.s.r.g.Fail(t.err)
		c.end(t.err)
		return false
	}
	return ok
}

// now and waited count the time c waits as blocked on input.
func (c *Cursor[T]) now() int64 {
	if c.m == nil {
		return 0
	}
	return c.m.rs.clock.Load()
}

func (c *Cursor[T]) waited(t int64) {
	if c.m != nil {
		c.m.blockedIn += c.m.rs.clock.Load() - t
	}
}

// takePartition takes the next partition. It reports false, and ends c,
// when there is none.
func (c *Cursor[T]) takePartition() bool {
	var t *task
	var ok, stop bool
	switch {
	case c.s.rt != nil:
		t, ok, stop = c.s.rt.take(c.i, c.s.feed.schedule, c.s.run.Done(), c.s.res, c.s.arrive, c.s.buffer)
	case c.s.recv != nil:
		t, ok, stop = c.s.receive()
	default:
		select { // a partition already scheduled costs no select on the run
		case t, ok = <-c.s.feed.schedule:
		default:
			select {
			case t, ok = <-c.s.feed.schedule:
			case <-c.s.run.Done():
				stop = true
			}
		}
	}
	if stop {
		c.end(c.s.cause())
		return false
	}
	if !ok {
		if err := c.s.res.finish(); err != nil {
			c.s.r.g.Fail(err)
			c.end(err)
			return false
		}
		c.end(nil)
		return false
	}
	c.t, c.ch, c.batch = t, t.out.(chan Chunk[T]), t.batch
	if c.pt != nil { // its channel closed without an End
		c.s.track.left(c.pt, true)
	}
	c.pt = c.s.track.take(c.i, t.batch)
	c.cut = c.s.res.cut(t.batch)
	if b := c.s.feed.budget; b != nil {
		b.setHead(t)
	}
	return true
}

// end ends c with err, once.
func (c *Cursor[T]) end(err error) {
	if c.done {
		return
	}
	if c.in {
		c.m.exit() // the loop body's chunk
		c.in = false
	}
	c.done, c.err, c.t, c.ch, c.item = true, c.s.located(err), nil, nil, Item[T]{}
	c.c.Release()
	c.k = -1
	if c.pt != nil {
		c.s.track.left(c.pt, false)
		c.pt = nil
	}
	c.s.track.release(c.i)
	if c.s.rt != nil {
		c.s.rt.leave(c.i)
	}
	c.s.ended()
}

// A serial last stage may run feedAhead partitions ahead of the cursors,
// each holding at most feedBuffer chunks.
const (
	feedAhead  = 3
	feedBuffer = 4
)

// cursorFeed is the downstream of a cursor set's last stage. When the
// last stage runs on several workers, the set reads the group's schedule
// of tasks directly (see group.start); otherwise the feed cuts the serial
// stream into tasks of its own.
type cursorFeed[T any] struct {
	splitter[T]
	schedule chan *task
	single   bool    // the set has one cursor
	budget   *budget // the adopted group's, for a single cursor
}

// adopt makes the feed hand out g's tasks, and keeps g's budget for a
// single cursor (see group.start).
func (f *cursorFeed[T]) adopt(g *group) {
	f.schedule = g.schedule
	if !f.single {
		g.budget = nil
		g.atOnce = true
	}
	f.budget = g.budget
}

func (f *cursorFeed[T]) close(ctx context.Context) error {
	if err := f.end(ctx); err != nil {
		return err
	}
	f.closed = true
	close(f.schedule)
	return nil
}

// failInBand hands err to the set's single cursor, which fails the run
// where it meets it (see inBand). With several cursors the run fails at
// once: the others would take the stream's end for a clean one.
func (f *cursorFeed[T]) failInBand(ctx context.Context, err error) (bool, error) {
	if !f.single {
		return false, nil
	}
	return f.splitter.failInBand(ctx, err, func() { close(f.schedule) })
}

// newCursorFeed returns the feed of a set of n cursors.
func newCursorFeed[T any](n int) *cursorFeed[T] {
	f := &cursorFeed[T]{schedule: make(chan *task, n+feedAhead), single: n == 1}
	f.open = func(ctx context.Context, batch int64) (chan Chunk[T], room, *error, error) {
		ch := make(chan Chunk[T], feedBuffer)
		t := &task{batch: batch, out: ch}
		return ch, nil, &t.err, send(ctx, f.schedule, t)
	}
	return f
}

// cancel stops the run without waiting for it, for a loop whose reader
// was dropped without ending it.
func (s *CursorSet[T]) cancel() {
	s.closed.Store(true)
	s.r.g.Cancel(errStopped)
}
