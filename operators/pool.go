package operators

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/rowid"
)

// purposePool keys BucketPool's shuffle of the batches of pool k: (seed,
// epoch, stage position, purposePool, k); part of the determinism
// contract.
const purposePool = 6

// BucketPool returns a stage that batches rows of similar length with a
// fixed number of batches, as torchtext's BucketIterator does: it takes
// the rows in pools of pool×size consecutive rows, sorts each pool by
// length, shortest first (stably, so equal lengths keep stream order; a
// negative length fails the run, naming the row), cuts it into pool
// batches of size rows, each one item whose value is a [Rows], and gives
// the batches out in an order shuffled with the PCG stream of (seed,
// epoch, the stage's position, purpose, pool number).
//
// Unlike [BucketByLength], the number of batches depends only on the
// number of rows: an epoch of n rows gives n/size batches, and one more
// for the remainder unless [DropRemainder] drops it ([PadRemainder] pads
// it instead). So ranks that receive equal numbers of rows ([EvenRanks])
// receive equal numbers of batches. The last pool of an epoch may be
// smaller.
//
// The stage is serial; its output partitions hold [PartitionItems]
// batches (default 16). Memory is one pool. To be resumed it needs the
// [flow.Mark] of the pool's first row, the pool's number within the epoch and
// the batches of it delivered: nothing is held across pools.
func BucketPool[T any](size, pool int, length func(T) int, opts ...BatchOption) flow.Stage {
	return flow.NewStage[T, Rows[T]](newPoolOp(size, pool, length, opts))
}

func newPoolOp[T any](size, pool int, length func(T) int, opts []BatchOption) *poolOp[T] {
	op := &poolOp[T]{size: size, pool: pool, length: length, cfg: shapeConfig{name: "bucket-pool", perPart: 16}}
	op.err = configure(&op.cfg, opts)
	if op.err == nil && (size < 1 || pool < 1) {
		op.err = fmt.Errorf("operators: BucketPool(%d, %d): the batch size and the pool must be at least 1", size, pool)
	}
	if op.err == nil && size > math.MaxInt/pool {
		op.err = fmt.Errorf("operators: BucketPool(%d, %d): a pool of size × pool rows is more than an int can count", size, pool)
	}
	if op.err == nil {
		op.err = nilFunc(op.cfg.name, length == nil)
	}
	return op
}

type poolOp[T any] struct {
	size, pool int
	length     func(T) int
	cfg        shapeConfig
	err        error
}

func (o *poolOp[T]) Info() flow.Info {
	return flow.Info{Name: o.cfg.name, Serial: "it groups rows across partitions", Settings: o.cfg.settings(fmt.Sprintf("size=%d pool=%d", o.size, o.pool))}
}

// Err reports a bad size or option.
func (o *poolOp[T]) Err() error { return o.err }

func (o *poolOp[T]) NewProcessor(env flow.Env) flow.Processor[T, Rows[T]] {
	if o.err != nil {
		return failed[T, Rows[T]]{o.err}
	}
	p := &poolProc[T]{op: o, env: env, base: rowid.FromString(o.cfg.name), out: outParts[Rows[T]]{per: o.cfg.perPart,
		steps: newStepLimit(&o.cfg, env, func(rows int64) int64 { return batches(rows, int64(o.size), o.cfg.last) })}}
	r, err := resumeRegroup(o.cfg.name, env, &p.in, &p.out)
	if err != nil {
		return failed[T, Rows[T]]{err}
	}
	if r != nil {
		p.index, p.skip = r.Group, r.Done
	}
	return p
}

// pooled is a row of the pool with its length.
type pooled[T any] struct {
	v   T
	id  rowid.ID
	len int
}

type poolProc[T any] struct {
	op    *poolOp[T]
	env   flow.Env
	base  rowid.ID
	in    inCursor
	start flow.Mark // the pool's first row
	rows  []pooled[T]
	index int64 // the pool's number within the epoch
	done  int64 // batches of the pool given out, while it is given out; else 0
	skip  int64 // batches of the first pool given out before the resume point
	out   outParts[Rows[T]]
}

func (p *poolProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[Rows[T]]) (err error) {
	defer c.Release()
	if p.out.crosses(c.Part) {
		if err := epochStart(ctx, p, &p.out, out, c.Part); err != nil {
			return err
		}
		p.index = 0
	}
	at := p.in.at(c.Part)
	k := 0
	defer guard(&c, &k, &err)
	for ; k < len(c.Values); k++ {
		if len(p.rows) == 0 {
			p.start = flow.Mark{Part: at.Part, Row: at.Row + int64(k)}
		}
		v := c.Values[k]
		l := p.op.length(v)
		if l < 0 {
			return negativeLength(&c, k, l)
		}
		p.rows = append(p.rows, pooled[T]{v: v, id: c.IDs.At(k), len: l})
		if len(p.rows) == p.op.size*p.op.pool {
			p.in.to(at, k+1)
			if err := p.end(ctx, out); err != nil {
				return err
			}
		}
	}
	p.in.advance(at, len(c.Values), c.End)
	return p.out.sync(ctx, out)
}

// Checkpoint reports the stage's state after the batches it has pushed:
// its input restarts at the pool's first row, and while the pool is given
// out, Done says how many of its batches were.
func (p *poolProc[T]) Checkpoint() (any, flow.Mark) {
	s := state(&p.out, p.in.restart(p.start, len(p.rows) > 0))
	s.Group = p.index
	if p.done > 0 {
		s.From, s.Done = p.start, p.done
	}
	return &s, s.From
}

// end sorts the pool, cuts it and gives out its batches in shuffled order.
func (p *poolProc[T]) end(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	rows := p.rows
	p.rows = nil
	if len(rows) == 0 {
		return nil
	}
	slices.SortStableFunc(rows, func(a, b pooled[T]) int { return cmp.Compare(a.len, b.len) })
	n := p.op.size
	var batches []Rows[T]
	for lo := 0; lo < len(rows); lo += n {
		hi := min(lo+n, len(rows))
		if hi-lo < n && p.op.cfg.last == remainderDrop {
			break
		}
		r := Rows[T]{Values: make([]T, 0, hi-lo), IDs: make([]rowid.ID, 0, hi-lo)}
		for _, row := range rows[lo:hi] {
			r.Values, r.IDs = append(r.Values, row.v), append(r.IDs, row.id)
		}
		if hi-lo < n && p.op.cfg.last == remainderPad {
			r.padTo(n)
		}
		batches = append(batches, r)
	}
	rng := pcg.Keyed(p.env.Seed, uint64(p.out.epoch), uint64(p.env.Position), purposePool, uint64(p.index))
	for i := len(batches) - 1; i > 0; i-- {
		j := rng.Intn(i + 1)
		batches[i], batches[j] = batches[j], batches[i]
	}
	skip := p.skip
	p.skip = 0
	for i, r := range batches[min(skip, int64(len(batches))):] {
		p.done = skip + int64(i) + 1
		if err := p.out.put(ctx, out, r, fold(p.base, r.IDs[:r.Len()-r.Padding])); err != nil {
			return err
		}
	}
	p.done = 0
	p.index++
	return nil
}

func (p *poolProc[T]) Flush(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	return flush(ctx, p, &p.out, out)
}
