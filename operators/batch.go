package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// Rows is the value of one batch of rows: its members' values and row IDs,
// in stream order. The last Padding members are padding (see
// [PadRemainder]): zero values with the zero row ID.
//
// The batch's own row ID, the ID of the item that carries it, is the
// stage's fixed ID (rowid.FromString of its name, see [Named]) combined
// with each real member's ID in order:
// base.Combine(IDs[0]).Combine(IDs[1])…, padding left out. Two batches
// with the same members in the same order have the same ID; the members'
// IDs stay available in IDs.
type Rows[T any] struct {
	Values  []T
	IDs     []rowid.ID
	Padding int
}

// Len returns the number of members, padding included.
func (r Rows[T]) Len() int { return len(r.Values) }

// rows returns the number of real members, padding left out.
func (r Rows[T]) rows() int { return len(r.Values) - r.Padding }

// padTo adds padding members up to n.
func (r *Rows[T]) padTo(n int) {
	r.Padding = n - len(r.Values)
	r.Values = append(r.Values, make([]T, r.Padding)...)
	r.IDs = append(r.IDs, make([]rowid.ID, r.Padding)...)
}

// Batch returns a stage that groups consecutive rows into batches of n,
// each one item whose value is a [Rows]. A batch may take rows from
// several input partitions, so Batch is serial: put it after the ordered
// merge (a Parallel stage before it is fine, and so is one after it).
// Its output partitions hold [PartitionItems] batches (default 16) and are
// numbered 0, 1, 2, …
//
// The last batch may be short: it is kept (the default), dropped
// ([DropRemainder]) or padded to n ([PadRemainder]). Batch panics
// nowhere: n < 1 or a bad option is kept as the stage's error and fails
// the pipeline.
//
// A note on names: an item's Part field is the number of the partition it
// belongs to, not a training batch; the training batch is the item Batch
// emits, whose Part field is its output partition.
//
// To be resumed, Batch needs the [flow.Mark] of the first row of the batch it
// is filling (rows before it were all delivered), the number of batches
// it delivered and its next output partition.
func Batch[T any](n int, opts ...BatchOption) flow.Stage {
	return flow.NewStage[T, Rows[T]](newBatchOp[T](n, opts))
}

func newBatchOp[T any](n int, opts []BatchOption) *batchOp[T] {
	op := &batchOp[T]{n: n, cfg: shapeConfig{name: "batch", perPart: 16}}
	op.err = configure(&op.cfg, opts)
	if op.err == nil && n < 1 {
		op.err = fmt.Errorf("operators: Batch(%d): the size must be at least 1", n)
	}
	return op
}

type batchOp[T any] struct {
	n   int
	cfg shapeConfig
	err error
}

func (b *batchOp[T]) Info() flow.Info {
	return flow.Info{Name: b.cfg.name, Serial: "it groups rows across partitions", Settings: b.cfg.settings(fmt.Sprintf("n=%d", b.n))}
}

// Err reports a bad size or option.
func (b *batchOp[T]) Err() error { return b.err }

func (b *batchOp[T]) NewProcessor(env flow.Env) flow.Processor[T, Rows[T]] {
	if b.err != nil {
		return failed[T, Rows[T]]{b.err}
	}
	p := &batchProc[T]{op: b, base: rowid.FromString(b.cfg.name), out: outParts[Rows[T]]{per: b.cfg.perPart,
		steps: newStepLimit(&b.cfg, env, func(rows int64) int64 { return batches(rows, int64(b.n), b.cfg.last) })}}
	if _, err := resumeRegroup(b.cfg.name, env, &p.in, &p.out); err != nil {
		return failed[T, Rows[T]]{err}
	}
	return p
}

type batchProc[T any] struct {
	op    *batchOp[T]
	base  rowid.ID
	in    inCursor
	start flow.Mark // of the first row of cur, if cur has rows
	cur   Rows[T]
	out   outParts[Rows[T]]
}

func (p *batchProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[Rows[T]]) error {
	defer c.Release()
	if err := epochStart(ctx, p, &p.out, out, c.Part); err != nil {
		return err
	}
	at := p.in.at(c.Part)
	n := p.op.n
	vals := c.Values
	var ids []rowid.ID // the chunk's IDs, once whole batches share its storage
	for k := 0; k < len(vals); {
		if len(p.cur.Values) == 0 && len(vals)-k >= n {
			// A whole batch inside the chunk takes a piece of the chunk's
			// storage instead of a copy. The batches own the storage from
			// the first one on: a push that stops the stream must not
			// recycle it under batches already delivered.
			if ids == nil {
				ids = c.IDs.AppendTo(make([]rowid.ID, 0, len(vals)))
				c.Values = nil
			}
			p.start = flow.Mark{Part: at.Part, Row: at.Row + int64(k)}
			p.cur = Rows[T]{Values: vals[k : k+n : k+n], IDs: ids[k : k+n : k+n]}
			k += n
			p.in.to(at, k)
			if err := p.emit(ctx, out); err != nil {
				return err
			}
			continue
		}
		if len(p.cur.Values) == 0 {
			p.start = flow.Mark{Part: at.Part, Row: at.Row + int64(k)}
			// Room for a whole batch, up to a bound: a size such as
			// math.MaxInt asks for one batch of the whole epoch, not for
			// that much memory ahead of the rows.
			room := min(n, maxBatchRoom)
			p.cur = Rows[T]{Values: make([]T, 0, room), IDs: make([]rowid.ID, 0, room)}
		}
		take := min(n-len(p.cur.Values), len(vals)-k)
		p.cur.Values = append(p.cur.Values, vals[k:k+take]...)
		p.cur.IDs = c.IDs.Slice(k, k+take).AppendTo(p.cur.IDs)
		k += take
		if len(p.cur.Values) == n {
			p.in.to(at, k)
			if err := p.emit(ctx, out); err != nil {
				return err
			}
		}
	}
	p.in.advance(at, len(vals), c.End)
	return p.out.sync(ctx, out)
}

// Checkpoint reports the stage's state after the batches it has pushed:
// its input restarts at the first row of the batch being filled.
func (p *batchProc[T]) Checkpoint() (any, flow.Mark) {
	s := state(&p.out, p.in.restart(p.start, len(p.cur.Values) > 0))
	return &s, s.From
}

// maxBatchRoom bounds the rows a batch being filled makes room for
// before they arrive; a larger batch grows by appending.
const maxBatchRoom = 4096

func (p *batchProc[T]) emit(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	r := p.cur
	p.cur = Rows[T]{}
	return p.out.put(ctx, out, r, fold(p.base, r.IDs[:len(r.IDs)-r.Padding]))
}

func (p *batchProc[T]) Flush(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	return flush(ctx, p, &p.out, out)
}

func (p *batchProc[T]) end(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	if len(p.cur.Values) > 0 {
		switch p.op.cfg.last {
		case remainderDrop:
			p.cur = Rows[T]{}
		case remainderPad:
			p.cur.padTo(p.op.n)
			fallthrough
		default:
			return p.emit(ctx, out)
		}
	}
	return nil
}
