package flow

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// setTrack follows what the cursors of a set that a Tracker follows have
// handed out, so that the tracker can take the set's position at any
// moment (see Tracker.set).
type setTrack struct {
	tr *Tracker
	n  int
	// floor: partitions before it are not followed (a resumed set's,
	// handed out before it).
	floor int64
	mu    sync.Mutex
	done  Mark         // the last partition wholly handed out before parts
	parts []*partTrack // the partitions started from the first not wholly handed out on, in order
}

// partTrack is the progress of one partition of a followed set.
type partTrack struct {
	part   int64
	n      atomic.Int64 // items handed out; the holding cursor adds to it
	cursor int          // the cursor holding it, or -1
	ended  bool         // every item was handed out
}

// newSetTrack follows a set of n cursors for tr, starting from ck, if
// the set was resumed, and makes tr take the set's positions.
func newSetTrack(tr *Tracker, n int, ck *Checkpoint) *setTrack {
	s := &setTrack{tr: tr, n: n, floor: math.MinInt64, done: streamStart}
	if ck != nil && ck.part != math.MinInt64 {
		s.floor = ck.part
		held := ck.held
		if len(held) == 0 || held[0].Part != ck.part {
			held = append([]heldPart{{Part: ck.part, Delivered: ck.delivered, Cursor: -1}}, held...)
		}
		for _, h := range held {
			p := &partTrack{part: h.Part, cursor: -1, ended: h.Ended}
			if ck.cursors == n {
				p.cursor = h.Cursor // it goes back to that cursor (see router)
			}
			p.n.Store(h.Delivered)
			s.parts = append(s.parts, p)
		}
	}
	tr.mu.Lock()
	tr.set = s.snapshot
	tr.mu.Unlock()
	return s
}

// receive receives the next task from the schedule for a set that is
// followed or resumed, and records its partition before another cursor
// can receive the next one: so the set's front never passes a partition
// a cursor has received, and at the schedule's end every partition has
// been recorded. stop is true when the run was stopped.
func (s *CursorSet[T]) receive() (t *task, ok, stop bool) {
	done := s.run.Done()
	select {
	case s.recv <- struct{}{}:
	case <-done:
		return nil, false, true
	}
	defer func() { <-s.recv }()
	select {
	case t, ok = <-s.feed.schedule:
	case <-done:
		return nil, false, true
	}
	if ok {
		s.arrive(t.batch)
	}
	return t, ok, false
}

// arrive records that partition part was received from the schedule.
func (s *CursorSet[T]) arrive(part int64) {
	s.track.arrive(part)
	if r := s.res; r != nil {
		r.mu.Lock()
		delete(r.due, part)
		r.mu.Unlock()
	}
}

// arrive records that partition part was received from the schedule,
// before any later one.
func (s *setTrack) arrive(part int64) {
	if s == nil || part < s.floor {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.parts) > 0 && part <= s.parts[len(s.parts)-1].part || len(s.parts) == 0 && part <= s.done.Part {
		return // resumed: recorded from the checkpoint, or handed out before
	}
	s.parts = append(s.parts, &partTrack{part: part, cursor: -1})
}

// take records that cursor i took partition part, and returns the
// progress it counts its items in, or nil for a partition it only drops.
func (s *setTrack) take(i int, part int64) *partTrack {
	if s == nil || part < s.floor {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.parts {
		if p.part == part {
			if p.ended {
				return nil
			}
			p.cursor = i
			return p
		}
	}
	return nil // not received in the stream's order: nothing to follow
}

// left records that the cursor holding p left it: every item handed out
// (complete), or not (the cursor was closed).
func (s *setTrack) left(p *partTrack, complete bool) {
	s.mu.Lock()
	p.cursor = -1
	p.ended = p.ended || complete
	moved := false
	for len(s.parts) > 0 && s.parts[0].ended {
		s.done = Mark{s.parts[0].part, s.parts[0].n.Load()}
		s.parts = s.parts[1:]
		moved = true
	}
	front := s.done
	if len(s.parts) > 0 {
		front = Mark{Part: s.parts[0].part}
	}
	s.mu.Unlock()
	if moved {
		// The tracker keeps the stages' states from the front on.
		s.tr.mu.Lock()
		if s.tr.pos.before(front) {
			s.tr.pos = front
		}
		s.tr.mu.Unlock()
	}
}

// release records that cursor i ended: the partition it was to resume
// is no one's.
func (s *setTrack) release(i int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	for _, p := range s.parts {
		if p.cursor == i {
			p.cursor = -1
		}
	}
	s.mu.Unlock()
}

// snapshot returns the set's position: the first partition not wholly
// handed out and its count, the number of cursors, and the partitions
// started from it on.
func (s *setTrack) snapshot() (Mark, int, []heldPart) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.parts) == 0 {
		return s.done, s.n, nil
	}
	held := make([]heldPart, len(s.parts))
	for k, p := range s.parts {
		held[k] = heldPart{Part: p.part, Delivered: p.n.Load(), Cursor: p.cursor, Ended: p.ended}
	}
	return Mark{held[0].Part, held[0].Delivered}, s.n, held
}

// setResume is what a set resumed from a checkpoint drops of the
// partitions its run gives again.
type setResume struct {
	front int64 // the checkpoint's partition: those before it were wholly handed out
	drops map[int64]partDrop
	mu    sync.Mutex
	due   map[int64]bool // partitions with items handed out that have not come yet
}

type partDrop struct {
	skip, need int64 // items to drop; items the partition has at least
	all        bool  // every item was handed out: drop it whole
}

// newSetResume returns what a set resumed from ck drops, or nil if it
// drops nothing. stages are ck's: a resumed last stage gives the
// checkpoint's partition from its Out mark on (see newDropper).
func newSetResume(ck *Checkpoint, stages []stageState) *setResume {
	if ck.part == math.MinInt64 {
		return nil
	}
	r := &setResume{front: ck.part, drops: map[int64]partDrop{}, due: map[int64]bool{}}
	seen := newDropper(ck.position(), stages, len(stages)).seen
	r.drops[ck.part] = partDrop{skip: max(ck.delivered-seen, 0), need: ck.delivered - seen}
	for _, h := range ck.held {
		if h.Part != ck.part {
			r.drops[h.Part] = partDrop{skip: h.Delivered, need: h.Delivered, all: h.Ended}
		}
	}
	for part, d := range r.drops {
		if d.need > 0 {
			r.due[part] = true
		}
	}
	return r
}

// dropsAll reports whether partition part is dropped whole.
func (r *setResume) dropsAll(part int64) bool {
	return r != nil && (part < r.front || r.drops[part].all)
}

// cut returns what a cursor drops of partition part.
func (r *setResume) cut(part int64) cut {
	if r == nil {
		return cut{}
	}
	if part < r.front {
		return cut{on: true, all: true, need: -1, part: part}
	}
	d, ok := r.drops[part]
	if !ok {
		return cut{}
	}
	return cut{on: true, all: d.all, skip: d.skip, need: d.need, part: part}
}

// finish returns an error at the stream's end if a partition the
// checkpoint's cursors had handed items of never came.
func (r *setResume) finish() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.due) == 0 {
		return nil
	}
	first := int64(math.MaxInt64)
	for p := range r.due {
		first = min(first, p)
	}
	return fmt.Errorf("flow: Resume: the checkpoint's cursors had handed out items of partition %d, which this pipeline's stream does not reach: the checkpoint was not taken from a run of this pipeline, or it was edited", first)
}

// cut is what a cursor of a resumed set drops of the partition it holds.
type cut struct {
	on   bool
	all  bool  // drop every item
	skip int64 // items still to drop
	need int64 // items the partition must give from where it restarts; -1: any
	seen int64
	part int64
}

// check reports whether the partition, now ended, had the items the
// checkpoint says were handed out.
func (u *cut) check() error {
	switch {
	case u.need >= 0 && u.seen < u.need:
		return fmt.Errorf("flow: Resume: the checkpoint's cursors had handed out %d items of partition %d, but this run's partition has %d: the checkpoint was not taken from a run of this pipeline, or it was edited", u.need, u.part, u.seen)
	case u.all && u.need >= 0 && u.seen != u.need:
		return fmt.Errorf("flow: Resume: the checkpoint's cursors had handed out all %d items of partition %d, but this run's partition has %d: the checkpoint was not taken from a run of this pipeline, or it was edited", u.need, u.part, u.seen)
	}
	return nil
}

// keep drops from ch what c's partition had handed out before the set
// was resumed, and reports whether anything of ch is left to pass on.
// At the partition's end it checks the counts; a mismatch fails the run.
func (c *Cursor[T]) keep(ch *Chunk[T]) bool {
	u := &c.cut
	if !u.on {
		return true
	}
	n := int64(ch.Len())
	k := n
	if !u.all {
		k = min(n, u.skip)
	}
	u.skip -= k
	u.seen += n
	if k > 0 {
		ch.Values = ch.Values[k:]
		ch.IDs = ch.IDs.Slice(int(k), int(n))
	}
	if ch.End {
		u.on = false
		if err := u.check(); err != nil {
			ch.Release()
			c.s.r.g.Fail(err)
			c.end(err)
			return false
		}
	}
	if ch.Len() == 0 && !ch.End {
		ch.Release()
		return false
	}
	return true
}

// router hands the partitions the cursors of a set held when its
// checkpoint was taken back to the same cursors, when the set is resumed
// with as many cursors. Tasks come from the schedule in partition order;
// one cursor at a time (the one holding token) receives from it and
// passes a task that is another cursor's to that cursor (parked), and a
// partition no cursor held, while it still waits for its own, to the
// cursors that wait for none (spare, in order), each to a cursor that
// has taken no later partition (last) while one that is open has not: a
// cursor's partitions never decrease. It reads each such
// partition into memory first (see CursorSet.buffer): its producer, and
// so the partitions after it, never wait for a cursor that is not being
// read, even when the cursors are read one after the other.
type router struct {
	mu      sync.Mutex
	owner   map[int64]int // partitions not yet received, and whose each is
	waiting []bool        // the cursor has not received its partition yet
	gone    []bool        // the cursor ended
	last    []int64       // the latest partition the cursor took or waits for
	parked  []*task
	spare   []*task
	token   chan struct{}
	wake    []chan struct{}
}

// newRouter returns the router of a set of n cursors resumed from ck, or
// nil if no cursor held a partition.
func newRouter(ck *Checkpoint, n int) *router {
	rt := &router{owner: map[int64]int{}, waiting: make([]bool, n), gone: make([]bool, n), last: make([]int64, n),
		parked: make([]*task, n), token: make(chan struct{}, 1), wake: make([]chan struct{}, n)}
	for i := range rt.wake {
		rt.wake[i] = make(chan struct{}, 1)
		rt.last[i] = math.MinInt64
	}
	for _, h := range ck.held {
		if h.Cursor >= 0 && !h.Ended {
			rt.owner[h.Part] = h.Cursor
			rt.waiting[h.Cursor] = true
			rt.last[h.Cursor] = h.Part
		}
	}
	if len(rt.owner) == 0 {
		return nil
	}
	return rt
}

// ready returns the task cursor i takes without receiving, if any:
// its own partition, or a spare one when it waits for none (or every
// cursor still open waits): the first not before the last partition i
// took, or one that no other open cursor can take in order. rt.mu is
// held.
func (rt *router) ready(i int) *task {
	if t := rt.parked[i]; t != nil {
		rt.parked[i], rt.waiting[i] = nil, false
		return t
	}
	if len(rt.spare) > 0 && (!rt.waiting[i] || rt.allWait()) {
		for k, t := range rt.spare {
			if t.batch >= rt.last[i] || !rt.inOrder(t.batch, i) {
				rt.spare = slices.Delete(rt.spare, k, k+1)
				rt.last[i] = max(rt.last[i], t.batch)
				return t
			}
		}
	}
	return nil
}

// inOrder reports whether an open cursor other than i can take
// partition part without going back. rt.mu is held.
func (rt *router) inOrder(part int64, i int) bool {
	for j, gone := range rt.gone {
		if j != i && !gone && rt.last[j] <= part {
			return true
		}
	}
	return false
}

// allWait reports whether every open cursor waits for its partition.
// rt.mu is held.
func (rt *router) allWait() bool {
	for i, w := range rt.waiting {
		if !w && !rt.gone[i] {
			return false
		}
	}
	return true
}

// take returns the next task of cursor i: ok is false at the schedule's
// end, stop true when the run was stopped. It records each partition it
// receives with arrive.
func (rt *router) take(i int, schedule chan *task, done <-chan struct{}, res *setResume, arrive func(int64), buffer func(*task) *task) (t *task, ok, stop bool) {
	for {
		rt.mu.Lock()
		t = rt.ready(i)
		rt.mu.Unlock()
		if t != nil {
			return t, true, false
		}
		select {
		case rt.token <- struct{}{}:
		case <-rt.wake[i]:
			continue
		case <-done:
			return nil, false, true
		}
		rt.mu.Lock()
		t = rt.ready(i)
		rt.mu.Unlock()
		if t != nil {
			<-rt.token
			return t, true, false
		}
		select {
		case t, ok = <-schedule:
		case <-rt.wake[i]:
			<-rt.token
			continue
		case <-done:
			<-rt.token
			return nil, false, true
		}
		if !ok {
			<-rt.token
			rt.wakeAll() // the others see the end too
			return nil, false, false
		}
		arrive(t.batch)
		rt.mu.Lock()
		o, owned := rt.owner[t.batch]
		if owned {
			delete(rt.owner, t.batch)
		}
		other := owned && o != i
		if owned && !other {
			rt.waiting[i] = false
		}
		keep := !owned && (!rt.waiting[i] || res.dropsAll(t.batch))
		if keep && !res.dropsAll(t.batch) {
			rt.last[i] = max(rt.last[i], t.batch)
		}
		rt.mu.Unlock()
		if keep || owned && !other {
			<-rt.token
			return t, true, false
		}
		// Another cursor's partition: read it into memory, holding the
		// token so that the partitions after it stay in order.
		b := buffer(t)
		rt.mu.Lock()
		switch {
		case b == nil: // the run was stopped
		case other && !rt.gone[o]:
			rt.parked[o] = b
		default:
			rt.insertSpare(b)
		}
		rt.mu.Unlock()
		<-rt.token
		if b == nil {
			return nil, false, true
		}
		rt.wakeAll()
	}
}

// leave records that cursor i ended: its partition, received or not,
// goes to the other cursors.
func (rt *router) leave(i int) {
	rt.mu.Lock()
	rt.gone[i], rt.waiting[i] = true, false
	for part, o := range rt.owner {
		if o == i {
			delete(rt.owner, part)
		}
	}
	if t := rt.parked[i]; t != nil {
		rt.parked[i] = nil
		rt.insertSpare(t)
	}
	rt.mu.Unlock()
	rt.wakeAll()
}

// insertSpare adds t to the spare tasks in partition order. rt.mu is
// held.
func (rt *router) insertSpare(t *task) {
	k, _ := slices.BinarySearchFunc(rt.spare, t.batch, func(a *task, b int64) int { return cmp.Compare(a.batch, b) })
	rt.spare = slices.Insert(rt.spare, k, t)
}

// buffer reads the rest of task t's partition into memory and returns a
// task that gives it from there, or nil if the run was stopped first. It
// takes the chunks' room, as a cursor receiving them does.
func (s *CursorSet[T]) buffer(t *task) *task {
	in := t.out.(chan Chunk[T])
	var q []Chunk[T]
	for {
		select {
		case c, ok := <-in:
			if ok && t.room != nil {
				t.room.take(s.weigh(c.Values))
			}
			if ok {
				q = append(q, c)
			}
			if ok && !c.End {
				continue
			}
			out := make(chan Chunk[T], len(q))
			for _, c := range q {
				out <- c
			}
			b := &task{batch: t.batch, out: out}
			if ok {
				b.err = t.err // sent before its End
			} else {
				close(out)
			}
			return b
		case <-s.run.Done():
			for _, c := range q {
				c.Release()
			}
			return nil
		}
	}
}

func (rt *router) poke(i int) {
	select {
	case rt.wake[i] <- struct{}{}:
	default:
	}
}

func (rt *router) wakeAll() {
	for i := range rt.wake {
		rt.poke(i)
	}
}
