package operators

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// Stages that regroup rows (Batch, the reductions, BucketByLength, Pack,
// TableBucket) keep state across partitions, so they are serial: they run
// after the ordered merge and see the serial order. Their input partitions
// vanish in their output; they number output partitions of their own,
// 0, 1, 2, … within each epoch (epoch.Part(e, k)), each of
// [PartitionItems] items, so that a Parallel stage can follow them and the
// next merge restores their order. Groups never span epochs: when the
// first row of a new epoch arrives, the stage ends the previous epoch as
// it ends the stream, by its remainder policy ([DropRemainder],
// [PadRemainder]).

// inCursor tracks the position of the rows a serial stage receives.
type inCursor struct {
	part    int64
	row     int64 // the next row of partition part to come
	started bool
	ended   bool // the last chunk ended its partition
}

// at returns the mark of the chunk's first row, starting a new partition
// when the chunk's partition number differs from the last one.
func (c *inCursor) at(part int64) flow.Mark {
	if !c.started || part != c.part {
		c.part, c.row, c.started = part, 0, true
	}
	c.ended = false
	return flow.Mark{Part: c.part, Row: c.row}
}

// to records that the rows of the chunk starting at at, up to its k-th,
// have been consumed. Stages call it before they push mid-chunk.
func (c *inCursor) to(at flow.Mark, k int) { c.row = at.Row + int64(k) }

// advance moves past the n rows of the chunk starting at at.
func (c *inCursor) advance(at flow.Mark, n int, end bool) { c.row, c.ended = at.Row+int64(n), end }

// next returns the mark of the next row to come: row 0 of a later
// partition if the last chunk ended its partition.
func (c *inCursor) next() flow.Mark {
	switch {
	case !c.started:
		return flow.Mark{}
	case c.ended:
		return flow.Mark{Part: c.part + 1}
	}
	return flow.Mark{Part: c.part, Row: c.row}
}

// restart returns where a resume of the stage would restart its input:
// at oldest if the stage holds rows, else at the next row to come.
func (c *inCursor) restart(oldest flow.Mark, holds bool) flow.Mark {
	if holds {
		return oldest
	}
	return c.next()
}

// resumeRegroup decodes the state a regrouping processor resumes from, if
// any, and applies its input and output positions to c and o.
func resumeRegroup[T any](name string, env flow.Env, c *inCursor, o *outParts[T]) (*regroupState, error) {
	s, err := resumeState[regroupState](name, env)
	if err != nil || s == nil {
		return nil, err
	}
	if err := s.check(name); err != nil {
		return nil, err
	}
	c.part, c.row, c.started = s.From.Part, s.From.Row, true
	o.epoch, o.part, o.n = s.Epoch, s.Output, int(s.Delivered)
	return s, nil
}

// state returns the output side of a stage's resume state.
func state[T any](o *outParts[T], from flow.Mark) regroupState {
	return regroupState{Epoch: o.epoch, From: from, Output: o.part, Delivered: int64(o.n)}
}

// outParts numbers a regrouping stage's output partitions and cuts them
// into chunks. Items are pushed when their partition is full, and at the
// end of each input chunk, so that nothing waits on the next input.
type outParts[T any] struct {
	per       int
	epoch     int64
	part      int64 // the output partition being filled, within the epoch
	n         int   // items of it added so far
	vals      []T
	ids       []rowid.ID
	delivered int64     // items pushed downstream
	steps     stepLimit // see Steps
}

// epochItems returns the items of the epoch added so far.
func (o *outParts[T]) epochItems() int64 { return o.part*int64(o.per) + int64(o.n) }

// put adds one output item, pushing the partition if it is full. An item
// past the epoch's step limit is dropped.
func (o *outParts[T]) put(ctx context.Context, out flow.Emitter[T], v T, id rowid.ID) error {
	n, has, err := o.steps.limit(ctx)
	if err != nil {
		return err
	}
	if has && o.epochItems() >= n {
		o.steps.drop(v)
		return nil
	}
	if o.vals == nil {
		// Chunks of a large partition are pushed at every sync, so their
		// buffers need not hold the whole partition: ordinary sizes keep
		// the recycled buffers ordinary.
		n := min(o.per, 1024)
		o.vals, o.ids = slicepool.Alloc[T](n), slicepool.Alloc[rowid.ID](n)
	}
	o.vals, o.ids = append(o.vals, v), append(o.ids, id)
	o.n++
	if o.n < o.per {
		return nil
	}
	return o.push(ctx, out, true)
}

// push pushes the pending items, ending the partition if end.
func (o *outParts[T]) push(ctx context.Context, out flow.Emitter[T], end bool) error {
	c := flow.Chunk[T]{Part: epoch.Part(o.epoch, o.part), IDs: flow.ListIDs(o.ids), Values: o.vals, End: end}
	o.delivered += int64(len(o.vals))
	o.vals, o.ids = nil, nil
	if end {
		o.part++
		o.n = 0
	}
	return out.Push(ctx, c)
}

// sync pushes what is pending without ending the partition. Stages call
// it at the end of every Process.
func (o *outParts[T]) sync(ctx context.Context, out flow.Emitter[T]) error {
	if len(o.vals) == 0 {
		return nil
	}
	return o.push(ctx, out, false)
}

// finish ends the last partition, if it has items. Stages call it at the
// end of Flush.
func (o *outParts[T]) finish(ctx context.Context, out flow.Emitter[T]) error {
	if o.n == 0 {
		return nil
	}
	return o.push(ctx, out, true)
}

// crosses reports whether the input batch belongs to a later epoch than
// the output so far. The stage then ends the epoch and
// calls [outParts.enter]; [epochStart] does both.
func (o *outParts[T]) crosses(batch int64) bool { return epoch.Of(batch) > o.epoch }

// enter starts numbering the output partitions of the input batch's
// epoch. The last partition of the previous epoch must be finished.
func (o *outParts[T]) enter(batch int64) { o.epoch, o.part, o.n = epoch.Of(batch), 0, 0 }

// ender is a regrouping processor: end pushes what it holds at the end of
// an epoch or of the stream, by its remainder policy.
type ender[T any] interface {
	end(ctx context.Context, out flow.Emitter[T]) error
}

// epochStart ends the previous epoch if batch starts a new one.
func epochStart[T any](ctx context.Context, p ender[T], o *outParts[T], out flow.Emitter[T], batch int64) error {
	if !o.crosses(batch) {
		return nil
	}
	if err := p.end(ctx, out); err != nil {
		return err
	}
	if err := o.steps.check(o.epoch, o.epochItems()); err != nil {
		return err
	}
	if err := o.finish(ctx, out); err != nil {
		return err
	}
	o.enter(batch)
	return nil
}

// flush ends the stream.
func flush[T any](ctx context.Context, p ender[T], o *outParts[T], out flow.Emitter[T]) error {
	if err := p.end(ctx, out); err != nil {
		return err
	}
	if err := o.steps.check(o.epoch, o.epochItems()); err != nil {
		return err
	}
	return o.finish(ctx, out)
}

// fold returns the N:1 ID of a group: base combined with each member ID
// in order.
func fold(base rowid.ID, members []rowid.ID) rowid.ID {
	id := base
	for _, m := range members {
		id = id.Combine(m)
	}
	return id
}

// failed is the processor of a stage whose options are bad: it fails the
// run at the first chunk, or at the end of an empty stream.
type failed[In, Out any] struct{ err error }

func (f failed[In, Out]) Process(_ context.Context, c flow.Chunk[In], _ flow.Emitter[Out]) error {
	c.Release()
	return f.err
}

func (f failed[In, Out]) Flush(context.Context, flow.Emitter[Out]) error { return f.err }
