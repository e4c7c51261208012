package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/pcg"
	"github.com/rowflow/rowflow/rowid"
)

// Purposes of the shuffles' random streams, keyed with (seed, epoch,
// stage position, purpose[, partition]); part of the determinism contract.
const (
	purposeShuffle = 1 // Shuffle's choices
	purposeBlock   = 2 // BlockShuffle: the output partition of each row
	purposeSlot    = 3 // BlockShuffle: the order within an output partition
	purposeIndex   = 4 // IndexShuffle's key
)

// Shuffle returns a stage that shuffles rows through a buffer of window
// rows, as tf.data's shuffle(buffer_size) does: rows enter the buffer in
// stream order; whenever it holds window rows it gives out one drawn
// uniformly at random, and at the end of each epoch it gives out the rest
// in random order. A row moves on average about window rows from where it
// was; window 1 keeps the order. Items keep their IDs.
//
// The draws come from a PCG stream of (seed, epoch, the stage's position
// in the pipeline), so every epoch is shuffled anew and the order never
// depends on the parallelism or on timing. Epochs are not mixed: the
// buffer is emptied at the end of each epoch (see flow.Pipeline.Epochs).
//
// Shuffle keeps rows across partitions, so it is serial: put it after the
// ordered merge (Parallel stages before and after it are fine). Its
// output partitions hold [PartitionItems] items (default 4096) and are
// numbered 0, 1, 2, … within each epoch. [MaxBytes] bounds the buffer by
// bytes too. window < 1 or a bad option is kept as the stage's error.
//
// Memory: window rows, their IDs and an int64 each. Cost: one draw of two
// PCG outputs and a few copies per row.
//
// # Resuming
//
// What the buffer holds depends only on the draws, never on the values
// (without MaxBytes), so a resume needs no rows: see [OrderState]. The
// input restarts at the oldest partition still held, whose rows are about
// window·ln(window) rows back.
func Shuffle[T any](window int, opts ...ShuffleOption) flow.Stage {
	return flow.NewStage[T, T](newShuffle[T](window, opts))
}

func newShuffle[T any](window int, opts []ShuffleOption) *shuffleOp[T] {
	op := &shuffleOp[T]{window: window, cfg: orderConfig{shapeConfig: shapeConfig{name: "shuffle", perPart: 4096}}}
	op.err = configureOrder(&op.cfg, opts)
	if op.err == nil {
		op.size, op.err = sizeFunc[T](&op.cfg)
	}
	switch {
	case op.err != nil:
	case window < 1:
		op.err = fmt.Errorf("operators: Shuffle(%d): the window must be at least 1", window)
	case op.cfg.resume != nil && op.size != nil && op.cfg.resume.Index != 0:
		op.err = fmt.Errorf("operators: %s: with MaxBytes, a resume starts at the epoch's first partition (Index 0), not %d", op.cfg.name, op.cfg.resume.Index)
	}
	return op
}

type shuffleOp[T any] struct {
	window int
	cfg    orderConfig
	size   func(T) int
	err    error
}

func (s *shuffleOp[T]) Info() flow.Info {
	return flow.Info{Name: s.cfg.name, Serial: "it shuffles rows across partitions"}
}

// Err reports a bad window or option.
func (s *shuffleOp[T]) Err() error { return s.err }

func (s *shuffleOp[T]) NewProcessor(env flow.Env) flow.Processor[T, T] {
	if s.err != nil {
		return failed[T, T]{s.err}
	}
	p := &shuffleProc[T]{op: s, env: env, out: outParts[T]{per: s.cfg.perPart}}
	p.resume = s.cfg.resume
	return p
}

// entry is a buffered row: its value, its ID and its ordinal in the
// epoch (-1 for the rows before a resume point).
type entry[T any] struct {
	v   T
	id  rowid.ID
	ord int64
}

// partStart is where an input partition began: its partition number and the
// ordinal of its first row in the epoch.
type partStart struct{ batch, row int64 }

type shuffleProc[T any] struct {
	op      *shuffleOp[T]
	env     flow.Env
	started bool
	epoch   int64
	rng     pcg.Rand

	buf   []entry[T]
	bytes int64

	rows   int64 // input rows of the epoch so far
	draws  int64 // rows given out in the epoch, including skipped ones
	skip   int64 // rows still to discard after a resume
	starts []partStart
	resume *OrderState // to apply at the first chunk; kept to answer State while skipping
	out    outParts[T]
}

func (p *shuffleProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	defer c.Release()
	if e := flow.EpochOf(c.Part); !p.started || e != p.epoch {
		if err := p.endEpoch(ctx, out); err != nil {
			return err
		}
		if err := p.begin(e); err != nil {
			return err
		}
	}
	if n := len(p.starts); n == 0 || p.starts[n-1].batch != c.Part {
		p.starts = append(p.starts, partStart{c.Part, p.rows})
		if len(p.starts) > 256 && p.op.size == nil {
			p.prune()
		}
	}
	if p.buf == nil {
		p.buf = make([]entry[T], 0, min(p.op.window, 1<<16))
	}
	if p.op.size == nil && p.skip == 0 {
		return p.fast(ctx, c, out)
	}
	window, size, maxBytes := p.op.window, p.op.size, p.op.cfg.maxBytes
	for k, v := range c.Values {
		p.buf = append(p.buf, entry[T]{v, c.IDs.At(k), p.rows})
		p.rows++
		if size != nil {
			p.bytes += int64(size(v))
			for p.bytes > maxBytes && len(p.buf) > 0 {
				if err := p.give(ctx, out); err != nil {
					return err
				}
			}
		}
		if len(p.buf) >= window {
			if err := p.give(ctx, out); err != nil {
				return err
			}
		}
	}
	return p.out.sync(ctx, out)
}

// fast is Process without a byte budget or rows to skip: give's work on
// locals, which is most of a shuffle's time.
func (p *shuffleProc[T]) fast(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	window, buf, rng, rows, draws := p.op.window, p.buf, p.rng, p.rows, p.draws
	var err error
	for k, v := range c.Values {
		buf = append(buf, entry[T]{v, c.IDs.At(k), rows})
		rows++
		if len(buf) < window {
			continue
		}
		j, last := rng.Intn(len(buf)), len(buf)-1
		e := buf[j]
		buf[j] = buf[last] // the next append overwrites buf[last]
		buf = buf[:last]
		draws++
		o := &p.out
		if o.vals == nil || o.n >= o.per-1 {
			if err = o.put(ctx, out, e.v, e.id); err != nil {
				break
			}
			continue
		}
		o.vals, o.ids = append(o.vals, e.v), append(o.ids, e.id)
		o.n++
	}
	if draws > p.draws {
		p.resume = nil
	}
	p.buf, p.rng, p.rows, p.draws = buf, rng, rows, draws
	if err != nil {
		return err
	}
	return p.out.sync(ctx, out)
}

// begin starts epoch e, or the resume point if the stage has one.
func (p *shuffleProc[T]) begin(e int64) error {
	p.started, p.epoch = true, e
	p.rng = pcg.Keyed(p.env.Seed, uint64(e), uint64(p.env.Position), purposeShuffle)
	p.rows, p.draws, p.skip, p.bytes, p.starts = 0, 0, 0, 0, p.starts[:0]
	p.out.part, p.out.n = flow.EpochPart(e, 0), 0
	r := p.resume
	if r == nil {
		return nil
	}
	if r.Epoch != e {
		return fmt.Errorf("operators: %s: resuming in epoch %d, but the input starts in epoch %d", p.op.cfg.name, r.Epoch, e)
	}
	// Before row r.Index the buffer held min(r.Index, window-1) rows, all
	// of earlier partitions and so all delivered before the checkpoint:
	// placeholders stand in for them.
	held := min(r.Index, int64(p.op.window-1))
	p.rows, p.draws = r.Index, r.Index-held
	p.rng.Advance(2 * p.draws)
	for range held {
		p.buf = append(p.buf, entry[T]{ord: -1})
	}
	p.skip = r.Output*int64(p.out.per) + r.Delivered - p.draws
	if p.skip < 0 {
		return fmt.Errorf("operators: %s: resume state %+v delivered fewer rows than had left the buffer", p.op.cfg.name, *r)
	}
	p.out.part, p.out.n = flow.EpochPart(e, r.Output), int(r.Delivered)
	return nil
}

// give gives out one row drawn from the buffer.
func (p *shuffleProc[T]) give(ctx context.Context, out flow.Emitter[T]) error {
	j, last := p.rng.Intn(len(p.buf)), len(p.buf)-1
	e := p.buf[j]
	p.buf[j] = p.buf[last]
	p.buf[last] = entry[T]{}
	p.buf = p.buf[:last]
	if p.op.size != nil {
		p.bytes -= int64(p.op.size(e.v))
	}
	p.draws++
	if p.skip > 0 {
		if p.skip--; p.skip == 0 {
			p.resume = nil
		}
		return nil
	}
	p.resume = nil
	return p.out.put(ctx, out, e.v, e.id)
}

// endEpoch gives out what the buffer holds and ends the last partition.
func (p *shuffleProc[T]) endEpoch(ctx context.Context, out flow.Emitter[T]) error {
	if !p.started {
		return nil
	}
	p.resume = nil // past the resume point's epoch
	for len(p.buf) > 0 {
		if err := p.give(ctx, out); err != nil {
			return err
		}
	}
	return p.out.finish(ctx, out)
}

func (p *shuffleProc[T]) Flush(ctx context.Context, out flow.Emitter[T]) error {
	return p.endEpoch(ctx, out)
}

// oldest returns the ordinal of the oldest row held, or the next row's if
// the buffer is empty.
func (p *shuffleProc[T]) oldest() int64 {
	o := p.rows
	for _, e := range p.buf {
		o = min(o, e.ord)
	}
	return o
}

// prune forgets the starts of partitions none of whose rows are held.
// The last start at or before the oldest row held stays first.
func (p *shuffleProc[T]) prune() {
	o, i := p.oldest(), 0
	for i+1 < len(p.starts) && p.starts[i+1].row <= o {
		i++
	}
	p.starts = append(p.starts[:0], p.starts[i:]...)
}

// State returns what resumes the stage after the rows it has pushed: its
// input restarts at the partition of the oldest row it holds (with
// MaxBytes, at the epoch's first partition). Rows of that partition that
// were already given out are given out again by the draws and discarded.
func (p *shuffleProc[T]) State() OrderState {
	if p.resume != nil {
		return *p.resume // still before the resume point
	}
	per := int64(p.out.per)
	s := OrderState{Epoch: p.epoch, Output: p.draws / per, Delivered: p.draws % per}
	if p.op.size == nil {
		p.prune()
	}
	if len(p.starts) > 0 {
		s.Partition, s.Index = p.starts[0].batch, p.starts[0].row
	}
	return s
}
