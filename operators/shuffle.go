package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/internal/run/epoch"
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
// (without MaxBytes), so a checkpoint holds no rows, only its draws. The
// input restarts at the oldest partition still held, whose rows are about
// window·ln(window) rows back; the draws since then are made again, the
// stream jumping ahead with Advance to where that partition began.
func Shuffle[T any](window int, opts ...ShuffleOption) flow.Stage {
	return flow.NewStage[T, T](newShuffle[T](window, opts))
}

func newShuffle[T any](window int, opts []ShuffleOption) *shuffleOp[T] {
	op := &shuffleOp[T]{window: window, cfg: orderConfig{shapeConfig: shapeConfig{name: "shuffle", perPart: 4096}}}
	op.err = configureOwn(&op.cfg, &op.cfg.shapeConfig, opts)
	if op.err == nil {
		op.size, op.err = sizeFunc[T](&op.cfg)
	}
	if op.err == nil && window < 1 {
		op.err = fmt.Errorf("operators: Shuffle(%d): the window must be at least 1", window)
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
	return flow.Info{Name: s.cfg.name, Serial: "it shuffles rows across partitions", Settings: s.cfg.settings(fmt.Sprintf("window=%d sized=%t", s.window, s.size != nil))}
}

// Err reports a bad window or option.
func (s *shuffleOp[T]) Err() error { return s.err }

func (s *shuffleOp[T]) NewProcessor(env flow.Env) flow.Processor[T, T] {
	if s.err != nil {
		return failed[T, T]{s.err}
	}
	r, err := resumeState[orderState](s.cfg.name, env)
	if err == nil && r != nil {
		err = r.check(s.cfg.name)
		if err == nil && s.size != nil && r.Index != 0 {
			err = fmt.Errorf("operators: %s: with MaxBytes, a resume starts at the epoch's first row (Index 0), not %d", s.cfg.name, r.Index)
		}
	}
	if err != nil {
		return failed[T, T]{err}
	}
	return &shuffleProc[T]{op: s, env: env, out: outParts[T]{per: s.cfg.perPart}, resume: r}
}

// entry is a buffered row: its value, its ID and the sequence number of
// its input partition (see heldPart).
type entry[T any] struct {
	v   T
	id  rowid.ID
	seq int64
}

// heldPart counts the rows of one input partition that the buffer holds.
type heldPart struct {
	part  int64 // its partition number; -1 for the rows before a resume point
	first int64 // the ordinal in the epoch of its first row
	n     int64 // rows of it held, and of the chunk being read, not yet given out
}

type shuffleProc[T any] struct {
	op      *shuffleOp[T]
	env     flow.Env
	started bool
	epoch   int64
	rng     pcg.Rand

	buf   []entry[T]
	bytes int64

	// parts runs from the oldest input partition with rows in the buffer to
	// the one being read; partition parts[i] has sequence number base+i.
	parts   []heldPart
	base    int64
	rows    int64 // input rows of the epoch consumed so far
	end     int64 // the ordinal after the chunk being read
	ended   bool  // the last input chunk ended its partition
	drained bool  // the epoch has been given out entirely
	skip    int64 // rows still to discard after a resume
	resume  *orderState
	out     outParts[T]
	ids     []rowid.ID // scratch: the IDs of the chunk being read
}

func (p *shuffleProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
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
	if n := len(p.parts); n == 0 || p.parts[n-1].part != c.Part {
		p.enter(c.Part)
	}
	p.parts[len(p.parts)-1].n += int64(len(c.Values))
	p.end, p.ended = p.rows+int64(len(c.Values)), false
	if p.buf == nil {
		p.buf = make([]entry[T], 0, min(p.op.window, 1<<16))
	}
	var err error
	if p.op.size == nil && p.skip == 0 {
		err = p.fast(ctx, c, out)
	} else {
		err = p.slow(ctx, c, out)
	}
	if err != nil {
		return err
	}
	p.ended = c.End
	return p.out.sync(ctx, out)
}

// enter starts counting the rows held of a new input partition, and
// forgets the partitions before it that have none.
func (p *shuffleProc[T]) enter(part int64) {
	i := 0
	for i < len(p.parts) && p.parts[i].n == 0 {
		i++
	}
	p.base += int64(i)
	p.parts = p.parts[i:] // append moves it to the front when it grows
	first := p.rows
	if p.resume != nil && part == p.resume.From.Part {
		first -= p.resume.From.Row // the input resumes inside this partition
	}
	p.parts = append(p.parts, heldPart{part: part, first: first})
}

// slow is Process with a byte budget or rows to skip.
func (p *shuffleProc[T]) slow(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	window, size, maxBytes := p.op.window, p.op.size, p.op.cfg.maxBytes
	seq := p.base + int64(len(p.parts)) - 1
	for k, v := range c.Values {
		p.buf = append(p.buf, entry[T]{v, c.IDs.At(k), seq})
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
	return nil
}

// fast is Process without a byte budget or rows to skip: give's work on
// locals, which is most of a shuffle's time. The locals are stored back
// before a push, where a checkpoint may read them.
func (p *shuffleProc[T]) fast(ctx context.Context, c flow.Chunk[T], out flow.Emitter[T]) error {
	window, buf, rng, parts, base := p.op.window, p.buf, p.rng, p.parts, p.base
	seq := base + int64(len(parts)) - 1
	o := &p.out
	p.ids = c.IDs.AppendTo(p.ids[:0]) // the chunk's IDs in one loop, not a call per row
	ids := p.ids[:len(c.Values)]
	var err error
	for k, v := range c.Values {
		buf = append(buf, entry[T]{v, ids[k], seq})
		if len(buf) < window {
			continue
		}
		j, last := rng.Intn(len(buf)), len(buf)-1
		e := buf[j]
		buf[j] = buf[last] // the next append overwrites buf[last]
		buf = buf[:last]
		parts[e.seq-base].n--
		if o.vals == nil || o.n >= o.per-1 {
			p.buf, p.rng, p.rows = buf, rng, p.end-int64(len(c.Values)-k-1)
			if err = o.put(ctx, out, e.v, e.id); err != nil {
				break
			}
			continue
		}
		o.vals, o.ids = append(o.vals, e.v), append(o.ids, e.id)
		o.n++
	}
	p.buf, p.rng, p.rows = buf, rng, p.end
	return err
}

// begin starts epoch e, or the resume point if the stage has one.
func (p *shuffleProc[T]) begin(e int64) error {
	r, e, err := resumeAt(p.op.cfg.name, p.resume, p.started, e)
	if err != nil {
		return err
	}
	p.started, p.epoch, p.drained = true, e, false
	p.rng = pcg.Keyed(p.env.Seed, uint64(e), uint64(p.env.Position), purposeShuffle)
	p.rows, p.end, p.skip, p.bytes, p.parts, p.ended = 0, 0, 0, 0, p.parts[:0], false
	p.out.epoch, p.out.part, p.out.n = e, 0, 0
	if r == nil {
		p.resume = nil
		return nil
	}
	// Before row r.Index the buffer held min(r.Index, window-1) rows, all
	// of earlier partitions and so all given out before the checkpoint:
	// placeholders stand in for them.
	held := min(r.Index, int64(p.op.window-1))
	draws := r.Index - held
	p.rows, p.end = r.Index, r.Index
	p.rng.Advance(2 * draws)
	if held > 0 {
		p.parts = append(p.parts, heldPart{part: -1, n: held})
		p.buf = make([]entry[T], 0, min(p.op.window, 1<<16))
		for range held {
			p.buf = append(p.buf, entry[T]{seq: p.base})
		}
	}
	p.skip = r.Output*int64(p.out.per) + r.Delivered - draws
	if p.skip < 0 {
		return fmt.Errorf("operators: %s: resume state %+v delivered fewer rows than had left the buffer", p.op.cfg.name, *r)
	}
	p.out.part, p.out.n = r.Output, int(r.Delivered)
	return nil
}

// give gives out one row drawn from the buffer.
func (p *shuffleProc[T]) give(ctx context.Context, out flow.Emitter[T]) error {
	j, last := p.rng.Intn(len(p.buf)), len(p.buf)-1
	e := p.buf[j]
	p.buf[j] = p.buf[last]
	p.buf[last] = entry[T]{}
	p.buf = p.buf[:last]
	p.parts[e.seq-p.base].n--
	if p.op.size != nil {
		p.bytes -= int64(p.op.size(e.v))
	}
	if p.skip > 0 {
		p.skip--
		return nil
	}
	return p.out.put(ctx, out, e.v, e.id)
}

// endEpoch gives out what the buffer holds and ends the last partition.
func (p *shuffleProc[T]) endEpoch(ctx context.Context, out flow.Emitter[T]) error {
	if !p.started {
		return nil
	}
	p.end = p.rows // a partition cut short is not read further
	for len(p.buf) > 0 {
		if err := p.give(ctx, out); err != nil {
			return err
		}
	}
	p.drained = true
	return p.out.finish(ctx, out)
}

func (p *shuffleProc[T]) Flush(ctx context.Context, out flow.Emitter[T]) error {
	if !p.started && p.resume != nil {
		// Resumed past its input's end: what was left is given out.
		if err := p.begin(p.resume.Epoch); err != nil {
			return err
		}
	}
	return p.endEpoch(ctx, out)
}

// Checkpoint reports the stage's state after the chunks it has pushed:
// its input restarts at the first partition of which it holds rows (with
// MaxBytes, at the epoch's first row), or at the next row if it holds
// none. The rows that partition had given out are drawn again and
// discarded.
func (p *shuffleProc[T]) Checkpoint() (any, flow.Mark) {
	s := &orderState{Epoch: p.epoch, Output: p.out.part, Delivered: int64(p.out.n)}
	switch {
	case p.drained:
		s = &orderState{Epoch: p.epoch + 1, From: flow.Mark{Part: epoch.Part(p.epoch+1, 0)}}
	case p.op.size != nil:
		s.From = flow.Mark{Part: epoch.Part(p.epoch, 0)}
	default:
		i, n := 0, len(p.parts)
		if n == 0 && p.resume != nil {
			return p.resume, p.resume.From // nothing read since the resume
		}
		if n == 0 { // nothing read since the epoch began
			s.From = flow.Mark{Part: epoch.Part(p.epoch, 0)}
			break
		}
		for i < n-1 && p.parts[i].n == 0 {
			i++
		}
		h := p.parts[i]
		if h.part < 0 { // rows from before the resume point: not given out yet
			return p.resume, p.resume.From
		}
		if i == n-1 {
			h.n -= p.end - p.rows // the chunk's rows not yet read
		}
		switch {
		case h.n > 0:
			s.From, s.Index = flow.Mark{Part: h.part}, h.first
		case p.ended:
			s.From, s.Index = flow.Mark{Part: h.part + 1}, p.rows
		default:
			s.From, s.Index = flow.Mark{Part: h.part, Row: p.rows - h.first}, p.rows
		}
	}
	return s, s.From
}
