package dataset

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// errStop reports that the consumer of an iterator stopped early.
var errStop = errors.New("dataset: iteration stopped")

// emitter numbers the fragments of one epoch in order and hands this
// rank's share, from the start index on, to the consumer.
type emitter struct {
	plan  *Plan
	epoch int64
	skip  int64 // fragments with a smaller index are not yielded
	n     int64 // fragments numbered so far, on all ranks
	yield func(Fragment, error) bool
}

// epoch plans epoch e and yields this rank's fragments from index skip on.
// It returns how many fragments the epoch has before the split between ranks (or how many
// it numbered before stopping) and the error it yielded, or errStop if the
// consumer stopped.
func (p *Plan) epoch(ctx context.Context, e, skip int64, yield func(Fragment, error) bool) (int64, error) {
	if p.cfg.world() > 1 {
		return p.rankEpoch(ctx, e, skip, yield)
	}
	return p.order(ctx, e, skip, yield)
}

// order numbers the fragments of epoch e in order and yields them from
// index skip on. It returns how many fragments it numbered and the error it
// yielded, or errStop if the consumer stopped.
func (p *Plan) order(ctx context.Context, e, skip int64, yield func(Fragment, error) bool) (int64, error) {
	em := &emitter{plan: p, epoch: e, skip: skip, yield: yield}
	var err error
	switch {
	case e > maxEpoch:
		err = fmt.Errorf("dataset: epoch %d exceeds the limit %d", e, maxEpoch)
	case p.cfg.Window == 0:
		err = p.planOrder(ctx, em)
	case p.cfg.Window < 0:
		err = p.globalOrder(ctx, e, em)
	default:
		err = p.windowOrder(ctx, e, em)
	}
	if err != nil && err != errStop {
		yield(Fragment{}, err)
	}
	return em.n, err
}

// planOrder emits files in RelPath order and their fragments in file order.
func (p *Plan) planOrder(ctx context.Context, em *emitter) error {
	for _, i := range p.files {
		if err := p.feed(ctx, i, func(f Fragment) error { return em.emit(ctx, f) }); err != nil {
			return err
		}
	}
	return nil
}

// globalOrder emits a permutation of all the epoch's fragments, drawn from
// the purposeGlobal stream.
func (p *Plan) globalOrder(ctx context.Context, e int64, em *emitter) error {
	var all []Fragment
	for _, i := range p.files {
		err := p.feed(ctx, i, func(f Fragment) error {
			if len(all) == EpochStride {
				return fmt.Errorf("dataset: epoch %d has more than %d fragments", e, int64(EpochStride))
			}
			all = append(all, f)
			return nil
		})
		if err != nil {
			return err
		}
	}
	shuffle(newStream(p.cfg.Seed, e, purposeGlobal), all)
	for _, f := range all {
		if err := em.emit(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

// windowOrder shuffles the files with the purposeFiles stream, then passes
// their fragments, in that file order, through a shuffle buffer of size k
// whose choices come from the purposeWindow stream: whenever the buffer
// holds k fragments it emits one at random; at the end it is drained in
// random order.
func (p *Plan) windowOrder(ctx context.Context, e int64, em *emitter) error {
	order := slices.Clone(p.files)
	shuffle(newStream(p.cfg.Seed, e, purposeFiles), order)
	s := newStream(p.cfg.Seed, e, purposeWindow)
	k := p.cfg.Window
	var buf []Fragment
	take := func() Fragment {
		j, last := s.intn(len(buf)), len(buf)-1
		f := buf[j]
		buf[j] = buf[last]
		buf = buf[:last]
		return f
	}
	for _, i := range order {
		err := p.feed(ctx, i, func(f Fragment) error {
			buf = append(buf, f)
			if len(buf) < k {
				return nil
			}
			return em.emit(ctx, take())
		})
		if err != nil {
			return err
		}
	}
	for len(buf) > 0 {
		if err := em.emit(ctx, take()); err != nil {
			return err
		}
	}
	return nil
}

// feed calls fn with the fragments of file i in file order. With
// WholeFiles it reads no footer: the fragment's row count is resolved when
// it is emitted.
func (p *Plan) feed(ctx context.Context, i int, fn func(Fragment) error) error {
	f := p.ds.files[i]
	if p.cfg.WholeFiles {
		return fn(Fragment{File: i, Path: f.RelPath, RowGroup: -1, To: unresolved})
	}
	rows, err := p.rowGroups(ctx, i)
	if err != nil {
		return err
	}
	n := 0
	for frag := range rowGroupFragments(i, f.RelPath, rows, p.cfg.MaxRows) {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(frag); err != nil {
			return err
		}
	}
	return nil
}

// emit numbers f and yields it if it is not before the start index.
func (em *emitter) emit(ctx context.Context, f Fragment) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.Epoch, f.Index = em.epoch, em.n
	em.n++
	if f.Index >= EpochStride {
		return fmt.Errorf("dataset: epoch %d has more than %d fragments", em.epoch, int64(EpochStride))
	}
	if f.Index < em.skip {
		return nil
	}
	if f.To == unresolved {
		rows, err := em.plan.rowGroups(ctx, f.File)
		if err != nil {
			return err
		}
		f.To = 0
		for _, n := range rows {
			f.To += n
		}
	}
	f.Part = f.Position().Batch()
	if !em.yield(f, nil) {
		return errStop
	}
	return nil
}
