package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// ReduceEvery returns a stage that folds each run of n consecutive rows
// into one value: the fold starts from the zero Out and calls
// f(acc, v) for each member in order. The output item's ID folds the
// members' IDs from the stage's fixed ID, as [Rows] describes for Batch.
// Groups may span input partitions, so the stage is serial; its output
// partitions hold [PartitionItems] values (default 1024).
//
// The last group may be short: it is kept (the default) or dropped
// ([DropRemainder]). n < 1 or a bad option is kept as the stage's error.
// An error from f fails the run, naming the row.
//
// Memory is one accumulator: members are folded as they come, not held.
// To be resumed, the stage needs the [flow.Mark] of the group's first row, the
// values it delivered and its next output partition.
func ReduceEvery[T, Out any](n int, f func(acc Out, v T) (Out, error), opts ...ReduceOption) flow.Stage {
	op := newReduce[T, Out](f, opts)
	if op.err == nil && n < 1 {
		op.err = fmt.Errorf("operators: ReduceEvery(%d): the group size must be at least 1", n)
	}
	op.every = n
	return flow.NewStage[T, Out](op)
}

// ReduceRuns returns a stage that folds each run of consecutive rows with
// equal keys into one value, as [ReduceEvery] folds groups of n. A key
// that comes back after another key starts a new run. [DropRemainder]
// does not apply, and is refused: the last run ends with the stream.
func ReduceRuns[T any, K comparable, Out any](key func(T) K, f func(acc Out, v T) (Out, error), opts ...ReduceOption) flow.Stage {
	op := newReduce[T, Out](f, opts)
	op.sameRun = func(a, b T) bool { return key(a) == key(b) }
	if op.err == nil && key == nil {
		op.err = fmt.Errorf("operators: ReduceRuns: nil key function")
	}
	if op.err == nil && op.cfg.lastSet {
		op.err = fmt.Errorf("operators: ReduceRuns: DropRemainder does not apply to runs of keys")
	}
	return flow.NewStage[T, Out](op)
}

func newReduce[T, Out any](f func(Out, T) (Out, error), opts []ReduceOption) *reduceOp[T, Out] {
	op := &reduceOp[T, Out]{f: f, cfg: shapeConfig{name: "reduce", perPart: 1024}}
	op.err = configure(&op.cfg, opts)
	if op.err == nil {
		op.err = nilFunc(op.cfg.name, f == nil)
	}
	return op
}

type reduceOp[T, Out any] struct {
	f       func(Out, T) (Out, error)
	every   int               // group size, or 0 for runs of keys
	sameRun func(a, b T) bool // runs of keys
	cfg     shapeConfig
	err     error
}

func (r *reduceOp[T, Out]) Info() flow.Info {
	return flow.Info{Name: r.cfg.name, Serial: "it folds rows across partitions", Settings: r.cfg.settings(fmt.Sprintf("every=%d runs=%t", r.every, r.sameRun != nil))}
}

// Err reports a bad group size or option.
func (r *reduceOp[T, Out]) Err() error { return r.err }

func (r *reduceOp[T, Out]) NewProcessor(env flow.Env) flow.Processor[T, Out] {
	if r.err != nil {
		return failed[T, Out]{r.err}
	}
	base := rowid.FromString(r.cfg.name)
	p := &reduceProc[T, Out]{op: r, base: base, id: base, out: outParts[Out]{per: r.cfg.perPart}}
	if _, err := resumeRegroup(r.cfg.name, env, &p.in, &p.out); err != nil {
		return failed[T, Out]{err}
	}
	return p
}

type reduceProc[T, Out any] struct {
	op    *reduceOp[T, Out]
	base  rowid.ID
	in    inCursor
	start flow.Mark // of the group's first row, if n > 0
	n     int       // members folded into acc
	acc   Out
	id    rowid.ID
	last  T // the group's last member, for runs of keys
	out   outParts[Out]
}

func (p *reduceProc[T, Out]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[Out]) (err error) {
	defer c.Release()
	if err := epochStart(ctx, p, &p.out, out, c.Part); err != nil {
		return err
	}
	at := p.in.at(c.Part)
	k := 0
	defer guard(&c, &k, &err)
	for ; k < len(c.Values); k++ {
		v := c.Values[k]
		if p.n > 0 && p.op.sameRun != nil && !p.op.sameRun(p.last, v) {
			p.in.to(at, k)
			if err := p.emit(ctx, out); err != nil {
				return err
			}
		}
		if p.n == 0 {
			p.start = flow.Mark{Part: at.Part, Row: at.Row + int64(k)}
		}
		if p.acc, err = p.op.f(p.acc, v); err != nil {
			return flow.ErrorAt(&c, k, err)
		}
		p.id = p.id.Combine(c.IDs.At(k))
		p.n++
		p.last = v
		if p.n == p.op.every {
			p.in.to(at, k+1)
			if err := p.emit(ctx, out); err != nil {
				return err
			}
		}
	}
	p.in.advance(at, len(c.Values), c.End)
	return p.out.sync(ctx, out)
}

// Checkpoint reports the stage's state after the values it has pushed:
// its input restarts at the first row of the group being folded.
func (p *reduceProc[T, Out]) Checkpoint() (any, flow.Mark) {
	s := state(&p.out, p.in.restart(p.start, p.n > 0))
	return &s, s.From
}

func (p *reduceProc[T, Out]) emit(ctx context.Context, out flow.Emitter[Out]) error {
	acc, id := p.acc, p.id
	var zero Out
	var zeroT T
	p.acc, p.id, p.n, p.last = zero, p.base, 0, zeroT
	return p.out.put(ctx, out, acc, id)
}

func (p *reduceProc[T, Out]) Flush(ctx context.Context, out flow.Emitter[Out]) error {
	return flush(ctx, p, &p.out, out)
}

func (p *reduceProc[T, Out]) end(ctx context.Context, out flow.Emitter[Out]) error {
	if p.n > 0 && p.op.cfg.last != remainderDrop {
		return p.emit(ctx, out)
	}
	var zero Out
	p.acc, p.id, p.n = zero, p.base, 0
	return nil
}
