package flow

import (
	"context"
	"fmt"
)

// StartAt makes the returned pipeline's runs start at item k of epoch e
// (both counted from 0): the first item is the one the uninterrupted run
// gives k items after epoch e's first, and the run goes on from there,
// into later epochs.
//
// How far a seeking run reads before its first item depends on the
// stages:
//
//   - If the source knows its partitions' row counts ([RowCounter]: a
//     slice, a generator, a Parquet dataset without a row filter) and
//     every stage gives one row per row and holds nothing
//     (Info.OneToOne: Map, MapChunks, Prefetch), the partition holding
//     item k is found from the counts: the partitions before it are
//     planned but not read, and only the items of its own before k are
//     dropped.
//   - Otherwise, if no stage holds rows across partitions (a Filter or a
//     FlatMap changes the counts, so item k cannot be found from them),
//     the run reads epoch e from its start and drops its first k items.
//   - Otherwise (a shuffle, a batcher: what they give in epoch e may
//     depend on what came before), the run reads from its start and drops
//     every item before the position. To start at a position of such a
//     pipeline without reading what comes before, take a [Checkpoint]
//     there and [Pipeline.Resume] from it.
//
// If epoch e has no item k, the run gives no items. e and k must not
// be negative.
func (p *Pipeline) StartAt(e, k int64) *Pipeline {
	if p.err != nil {
		return p
	}
	if e < 0 || k < 0 || e > MaxEpochs {
		return p.fail(fmt.Errorf("flow: StartAt(%d, %d): need 0 <= epoch <= %d and item >= 0", e, k, int64(MaxEpochs)))
	}
	q := p.clone()
	q.seek = &seekSpec{epoch: e, item: k}
	return q
}

// StartsAt reports the position [Pipeline.StartAt] set: the epoch and
// the item within it, and true; or false if p starts at its beginning.
// The position is not part of p's fingerprint, since a checkpoint taken
// in a run that started there resumes p itself; a stage that keeps what a
// run gave, as a cache does, must tell two starting points apart itself.
func (p *Pipeline) StartsAt() (epoch, item int64, ok bool) {
	if p.seek == nil {
		return 0, 0, false
	}
	return p.seek.epoch, p.seek.item, true
}

type seekSpec struct{ epoch, item int64 }

// seekMode says how a run of p finds its seek position.
type seekMode int

const (
	seekPlan    seekMode = iota // from the source's row counts
	seekEpoch                   // read the epoch, drop k items
	seekFromRun                 // read from the run's start
)

func (p *Pipeline) seekMode() seekMode {
	mode := seekPlan
	if p.src.counter() == nil {
		mode = seekEpoch
	}
	for _, s := range p.stages[1:] {
		info := s.op.info()
		switch {
		case info.OneToOne:
		case info.Serial != "":
			return seekFromRun
		default:
			mode = seekEpoch
		}
	}
	return mode
}

// seekPartitions returns, for a run that seeks by plan, how many of epoch
// e's partitions to skip and how many items of the next to drop; ok is
// false if the epoch has no item k.
func seekPartitions(ctx context.Context, rc RowCounter, env Env, k int64) (skip int, drop int64, ok bool, err error) {
	counts, err := rc.RowCounts(ctx, env)
	if err != nil {
		return 0, 0, false, err
	}
	for i, n := range counts {
		if k < n {
			return i, k, true, nil
		}
		k -= n
	}
	return len(counts), 0, false, nil
}
