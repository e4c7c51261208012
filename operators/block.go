package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// BlockShuffle returns a stage that shuffles rows within a rolling window
// of k whole partitions, in the manner of CNTK's block randomizer, on top
// of the order in which the source gives its partitions (shuffle those at
// the source, e.g. with the Parquet source's ShuffleWindow).
//
// Row r of the epoch's q-th input partition goes to output partition
// q + j, with j drawn uniformly from [0, k) from the input partition's
// own PCG stream of (seed, epoch, stage position, q). Output partition q
// is complete once input partition q has ended; it is then put in random
// order (a Fisher–Yates shuffle from its own stream) and given out. So a
// row moves at most k partitions, rows of k neighbouring partitions are
// mixed, at most k partitions' worth of rows are held, and k = 1 shuffles
// each partition in place. Items keep their IDs; output partitions are
// numbered like the input's ordinals, 0, 1, 2, … within each epoch, plus
// k-1 partitions at the end of the epoch.
//
// BlockShuffle keeps rows across partitions, so it is serial: put it after
// the ordered merge. k < 1 or a bad option is kept as the stage's error.
//
// To be resumed, it restarts its input at partition
// q-k+1 when it was giving out output partition q: the rows it held all
// came from the k partitions up to q.
func BlockShuffle[T any](k int, opts ...ShuffleOption) flow.Stage {
	return flow.NewStage[T, T](newBlock[T](k, opts))
}

func newBlock[T any](k int, opts []ShuffleOption) *blockOp[T] {
	op := &blockOp[T]{k: k, cfg: orderConfig{shapeConfig: shapeConfig{name: "block-shuffle"}}}
	op.err = configureOwn(&op.cfg, &op.cfg.shapeConfig, opts)
	switch {
	case op.err != nil:
	case k < 1:
		op.err = fmt.Errorf("operators: BlockShuffle(%d): k must be at least 1", k)
	case op.cfg.size != nil:
		op.err = fmt.Errorf("operators: %s: MaxBytes is an option of Shuffle; BlockShuffle's window is whole partitions", op.cfg.name)
	case op.cfg.perPart != 0:
		op.err = fmt.Errorf("operators: %s: PartitionItems is an option of Shuffle; BlockShuffle's output partitions follow its input's", op.cfg.name)
	}
	return op
}

type blockOp[T any] struct {
	k   int
	cfg orderConfig
	err error
}

func (b *blockOp[T]) Info() flow.Info {
	return flow.Info{Name: b.cfg.name, Serial: "it shuffles rows across partitions", Settings: b.cfg.settings(fmt.Sprintf("k=%d", b.k))}
}

// Err reports a bad k or option.
func (b *blockOp[T]) Err() error { return b.err }

func (b *blockOp[T]) NewProcessor(env flow.Env) flow.Processor[T, T] {
	if b.err != nil {
		return failed[T, T]{b.err}
	}
	r, err := resumeState[orderState](b.cfg.name, env)
	if err == nil && r != nil {
		err = r.check(b.cfg.name)
		if err == nil && (r.Index > r.Output || r.Output-r.Index >= int64(b.k)) {
			err = fmt.Errorf("operators: %s: resume state %+v: input partition %d cannot hold rows of output partition %d with k = %d",
				b.cfg.name, *r, r.Index, r.Output, b.k)
		}
	}
	if err != nil {
		return failed[T, T]{err}
	}
	return &blockProc[T]{op: b, env: env, slots: make([]slot[T], b.k), batches: make([]int64, b.k), resume: r}
}

// slot is one output partition being filled.
type slot[T any] struct {
	vals []T
	ids  []rowid.ID
}

type blockProc[T any] struct {
	op      *blockOp[T]
	env     flow.Env
	started bool
	epoch   int64
	q       int64     // ordinal in the epoch of the input partition being read
	q0      int64     // the ordinal the epoch's input began at
	from    flow.Mark // and where it began
	open    bool      // a partition is being read (its End has not come)
	rng     pcg.Rand  // input partition q's stream
	slots   []slot[T]
	batches []int64 // partition numbers of the last k input partitions, by ordinal mod k
	next    int64   // the next output partition to give out
	sent    int64   // items of it pushed
	resume  *orderState
	discard int64 // output partitions before this are discarded (resume)
	skip    int64 // items of output partition discard to discard
}

func (p *blockProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	defer c.Release()
	e := c.Epoch()
	if !p.started {
		if err := p.begin(e); err != nil {
			return err
		}
	}
	if e != p.epoch {
		if err := p.endEpoch(ctx, out); err != nil {
			return err
		}
		if err := p.begin(e); err != nil {
			return err
		}
	}
	if !p.open {
		p.open = true
		p.rng = pcg.Keyed(p.env.Seed, uint64(p.epoch), uint64(p.env.Position), purposeBlock, uint64(p.q))
		p.batches[p.q%int64(p.op.k)] = c.Part
	}
	k := uint64(p.op.k)
	for i, v := range c.Values {
		j := (p.q + int64(uint64(p.rng.Next())*k>>32)) % int64(k)
		s := &p.slots[j]
		s.vals, s.ids = append(s.vals, v), append(s.ids, c.IDs.At(i))
	}
	if !c.End {
		return nil
	}
	p.open = false
	p.q++
	return p.give(ctx, out, p.q-1)
}

// begin starts epoch e, or the resume point if the stage has one.
func (p *blockProc[T]) begin(e int64) error {
	r, e, err := resumeAt(p.op.cfg.name, p.resume, p.started, e)
	p.resume = nil
	if err != nil {
		return err
	}
	p.started, p.epoch, p.q, p.next, p.sent, p.open = true, e, 0, 0, 0, false
	p.discard, p.skip, p.q0, p.from = 0, 0, 0, flow.Mark{Part: epoch.Part(e, 0)}
	if r != nil {
		p.q, p.q0, p.from, p.next, p.discard, p.skip = r.Index, r.Index, r.From, r.Index, r.Output, r.Delivered
	}
	return nil
}

// give gives out the output partitions up to and including last, in
// random order each.
func (p *blockProc[T]) give(ctx context.Context, out flow.Emitter[T], last int64) error {
	for p.next <= last {
		q := p.next
		s := &p.slots[q%int64(p.op.k)]
		vals, ids := s.vals, s.ids
		*s = slot[T]{}
		rng := pcg.Keyed(p.env.Seed, uint64(p.epoch), uint64(p.env.Position), purposeSlot, uint64(q))
		for i := len(vals) - 1; i > 0; i-- {
			j := rng.Intn(i + 1)
			vals[i], vals[j] = vals[j], vals[i]
			ids[i], ids[j] = ids[j], ids[i]
		}
		if q < p.discard {
			p.next++
			continue // given out before the resume point
		}
		from := 0
		if q == p.discard {
			from = int(min(p.skip, int64(len(vals))))
			p.sent = int64(from)
		}
		if err := p.push(ctx, out, vals[from:], ids[from:]); err != nil {
			return err
		}
	}
	return nil
}

// push pushes output partition p.next, whose first p.sent items were
// pushed before, in chunks of recycled buffers: chunks of ordinary size
// keep the buffers that circulate through the pipeline ordinary too.
func (p *blockProc[T]) push(ctx context.Context, out flow.Emitter[T], vals []T, ids []rowid.ID) error {
	part := epoch.Part(p.epoch, p.next)
	for lo := 0; ; lo += blockChunk {
		hi := min(lo+blockChunk, len(vals))
		c := flow.Chunk[T]{Part: part, End: hi == len(vals),
			Values: append(slicepool.Alloc[T](hi-lo), vals[lo:hi]...),
			IDs:    flow.ListIDs(append(slicepool.Alloc[rowid.ID](hi-lo), ids[lo:hi]...))}
		if c.End {
			p.next, p.sent = p.next+1, 0
		} else {
			p.sent += int64(hi - lo)
		}
		if err := out.Push(ctx, c); err != nil || c.End {
			return err
		}
	}
}

// endEpoch gives out the output partitions still filling.
func (p *blockProc[T]) endEpoch(ctx context.Context, out flow.Emitter[T]) error {
	if !p.started {
		return nil
	}
	if p.open {
		p.q++ // a partition that did not end: its rows are given out all the same
		p.open = false
	}
	return p.give(ctx, out, p.q+int64(p.op.k)-2)
}

func (p *blockProc[T]) Flush(ctx context.Context, out flow.Emitter[T]) error {
	if !p.started && p.resume != nil {
		// Resumed past its input's end: what was left is given out.
		if err := p.begin(p.resume.Epoch); err != nil {
			return err
		}
	}
	return p.endEpoch(ctx, out)
}

// Checkpoint reports the stage's state after the chunks it has pushed: the
// output partition being given out, whose rows come from the k input
// partitions up to its own ordinal, where the input restarts.
func (p *blockProc[T]) Checkpoint() (any, flow.Mark) {
	from := max(p.next-int64(p.op.k)+1, p.q0)
	s := &orderState{Epoch: p.epoch, Index: from, Output: p.next, Delivered: p.sent}
	switch {
	case from < p.q || from == p.q && p.open:
		s.From = flow.Mark{Part: p.batches[from%int64(p.op.k)]}
	case p.q == p.q0:
		s.From = p.from // nothing read since the epoch began
	default:
		s.From = flow.Mark{Part: p.batches[(p.q-1)%int64(p.op.k)] + 1}
	}
	return s, s.From
}

// blockChunk is the most rows of a BlockShuffle output chunk.
const blockChunk = 1024
