package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/rowid"
)

// purposeTable keys TableBucket's shuffle of table k: (seed, epoch, stage
// position, purposeTable, k); part of the determinism contract.
const purposeTable = 5

// TableBucket returns a stage that batches rows as fairseq2's table
// bucketing does: it concatenates whole consecutive input partitions (the
// "tables" a Parquet reader yields) into one in-memory table, from
// [Tables]' min up to its max partitions, until the table holds at least
// its target rows; shuffles the table's rows; and splits them into batches
// of size rows, each one item whose value is a [Rows]. Rows mix across
// partitions without a row-level shuffle buffer over the whole stream.
//
// Table k of epoch e is shuffled (Fisher–Yates) with the PCG stream of
// (seed, e, the stage's position in the pipeline, purpose, k), so the
// batches depend on the seed, the epoch and the serial input only. The
// last table of an epoch may have fewer partitions than the minimum. Each
// table's last batch may be short: it is kept (the default), dropped
// ([DropRemainder]) or padded ([PadRemainder]). Batch IDs follow [Rows].
//
// The stage is serial; its output partitions hold [PartitionItems]
// batches (default 16). Memory is one table: at most max partitions. To be
// resumed it needs the input partition at which the current table starts,
// the table's number within the epoch and the batches of it delivered:
// nothing is held across tables.
func TableBucket[T any](size int, opts ...TableOption) flow.Stage {
	return flow.NewStage[T, Rows[T]](newTableOp[T](size, opts))
}

func newTableOp[T any](size int, opts []TableOption) *tableOp[T] {
	op := &tableOp[T]{size: size, cfg: shapeConfig{name: "table-bucket", perPart: 16, minParts: 1, maxParts: 1}}
	op.err = configure(&op.cfg, opts)
	if op.err == nil && size < 1 {
		op.err = fmt.Errorf("operators: TableBucket(%d): the batch size must be at least 1", size)
	}
	return op
}

// tableOpt is taken by TableBucket.
type tableOpt struct{ option }

func (tableOpt) tableOption() {}

// Tables sets how [TableBucket] builds a table: at least min and at most
// max consecutive partitions, stopping once it holds target rows or more
// (default 1, 1 and 0: one partition per table). 1 <= min <= max and
// target >= 0 are required.
func Tables(min, max, target int) TableOption {
	return tableOpt{option{"Tables", func(c *shapeConfig) error {
		if min < 1 || max < min || target < 0 {
			return fmt.Errorf("Tables(%d, %d, %d): need 1 <= min <= max and target >= 0", min, max, target)
		}
		c.minParts, c.maxParts, c.target = min, max, target
		return nil
	}}}
}

type tableOp[T any] struct {
	size int
	cfg  shapeConfig
	err  error
}

func (t *tableOp[T]) Info() flow.Info {
	return flow.Info{Name: t.cfg.name, Serial: "it groups partitions into tables", Settings: t.cfg.settings(fmt.Sprintf("size=%d", t.size))}
}

// Err reports a bad size or option.
func (t *tableOp[T]) Err() error { return t.err }

func (t *tableOp[T]) NewProcessor(env flow.Env) flow.Processor[T, Rows[T]] {
	if t.err != nil {
		return failed[T, Rows[T]]{t.err}
	}
	p := &tableProc[T]{op: t, env: env, base: rowid.FromString(t.cfg.name), out: outParts[Rows[T]]{per: t.cfg.perPart, steps: newStepLimit(&t.cfg, env, nil)}}
	r, err := resumeRegroup(t.cfg.name, env, &p.in, &p.out)
	if err != nil {
		return failed[T, Rows[T]]{err}
	}
	if r != nil {
		p.table, p.skip = r.Group, r.Done
	}
	return p
}

type tableProc[T any] struct {
	op    *tableOp[T]
	env   flow.Env
	base  rowid.ID
	vals  []T
	ids   []rowid.ID
	parts int   // partitions in the table
	start int64 // the partition number of the table's first partition
	table int64 // the table's number within the epoch
	done  int64 // batches of the table given out, while it is given out; else 0
	skip  int64 // batches of the first table given out before the resume point
	in    inCursor
	out   outParts[Rows[T]]
}

func (p *tableProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[Rows[T]]) error {
	defer c.Release()
	if p.out.crosses(c.Part) {
		if err := epochStart(ctx, p, &p.out, out, c.Part); err != nil {
			return err
		}
		p.table = 0
	}
	at := p.in.at(c.Part)
	p.in.advance(at, len(c.Values), c.End)
	if p.parts == 0 && len(p.vals) == 0 {
		p.start = c.Part
	}
	p.vals = append(p.vals, c.Values...)
	p.ids = c.IDs.AppendTo(p.ids)
	if c.End {
		p.parts++
		cfg := &p.op.cfg
		if p.parts >= cfg.maxParts || p.parts >= cfg.minParts && len(p.vals) >= cfg.target {
			if err := p.end(ctx, out); err != nil {
				return err
			}
		}
	}
	return p.out.sync(ctx, out)
}

// Checkpoint reports the stage's state after the batches it has pushed:
// its input restarts at the table's first partition, or at the next
// partition if the table is empty; while the table is given out, Done says
// how many of its batches were.
func (p *tableProc[T]) Checkpoint() (any, flow.Mark) {
	s := state(&p.out, p.in.restart(flow.Mark{Part: p.start}, p.parts > 0 || len(p.vals) > 0 || p.done > 0))
	s.Group, s.Done = p.table, p.done
	return &s, s.From
}

// end shuffles the table and emits its batches.
func (p *tableProc[T]) end(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	vals, ids := p.vals, p.ids
	p.vals, p.ids, p.parts = nil, nil, 0
	if len(vals) == 0 {
		return nil
	}
	rng := pcg.Keyed(p.env.Seed, uint64(p.out.epoch), uint64(p.env.Position), purposeTable, uint64(p.table))
	for i := len(vals) - 1; i > 0; i-- {
		j := rng.Intn(i + 1)
		vals[i], vals[j] = vals[j], vals[i]
		ids[i], ids[j] = ids[j], ids[i]
	}
	n, skip := p.op.size, p.skip
	p.skip = 0
	for lo := 0; lo < len(vals); lo += n {
		hi := min(lo+n, len(vals))
		r := Rows[T]{Values: vals[lo:hi:hi], IDs: ids[lo:hi:hi]}
		if hi-lo < n {
			switch p.op.cfg.last {
			case remainderDrop:
				continue
			case remainderPad:
				r.padTo(n)
			}
		}
		if p.done++; p.done <= skip {
			continue // given out before the resume point
		}
		if err := p.out.put(ctx, out, r, fold(p.base, r.IDs[:r.Len()-r.Padding])); err != nil {
			return err
		}
	}
	p.done = 0
	p.table++
	return nil
}

func (p *tableProc[T]) Flush(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	return flush(ctx, p, &p.out, out)
}
