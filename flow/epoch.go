package flow

import (
	"context"
	"fmt"
	"iter"
	"math"

	"github.com/rowflow/rowflow/internal/run/epoch"
)

// # Epochs
//
// A run reads its source once per epoch. Epochs are numbered from 0; the
// source is planned again for every epoch with the epoch in its [Env], so a
// source or stage that draws random choices from (seed, epoch, …) reshuffles
// every epoch. Within epoch e, a source's partition numbers lie in [0, 2^32);
// the run carries the epoch in the partition numbers' high bits, so that
// they keep increasing from one epoch to the next, and [Item.Epoch] (or
// [Chunk.Epoch]) tells which epoch an item belongs to.

// maxEpochs is the largest number of epochs a run can have, 2^31 - 1: the
// epoch of a partition number is below 2^31.
const maxEpochs = epoch.Max

// Forever, given to [Pipeline.Epochs], repeats the source until the
// stream is ended downstream (by operators.Take, say) or the run is
// cancelled.
const Forever = -1

// Epoch returns the epoch the item belongs to, counted from 0.
func (it Item[T]) Epoch() int64 { return epoch.Of(it.Part) }

// Epoch returns the epoch the chunk's items belong to, counted from 0.
func (c Chunk[T]) Epoch() int64 { return epoch.Of(c.Part) }

// Epochs makes a run read its source n times, each time planned anew with
// the epoch number in the source's [Env]; n is [Forever] (or any negative
// number) for no end. The default is 1. An epoch in which the source yields
// no partition ends the run, so an empty source repeated forever ends too.
//
// Within an epoch a source's partition numbers must lie in [0, 2^32); a run of
// more than one epoch fails with an error naming the source otherwise.
// n = 0 is an error, and so is n above 2^31 - 1, the most epochs a run
// can have.
func (p *Pipeline) Epochs(n int64) *Pipeline {
	if p.err != nil {
		return p
	}
	switch {
	case n == 0:
		return p.fail(fmt.Errorf("flow: Epochs(0): want at least 1, or Forever"))
	case n > maxEpochs:
		return p.fail(fmt.Errorf("flow: Epochs(%d): at most %d", n, int64(maxEpochs)))
	case n < 0:
		n = Forever
	}
	q := p.clone()
	q.epochs = n
	return q
}

// withPass makes a run the k-th of runs that follow one another over
// fresh epochs (k counted from 0, the default): with Epochs(n) the run
// reads epochs k·n, …, k·n+n−1 (with Forever, from epoch k on), each
// planned and shuffled as that epoch of a longer run would be.
// operators.Mix and Interleave restart an input that ran out this way
// (through linkage.Pass), so that every restart reshuffles. The
// fingerprint covers k when it is above 0. k must lie in [0, maxEpochs].
func (p *Pipeline) withPass(k int64) *Pipeline {
	if p.err != nil {
		return p
	}
	if k < 0 || k > maxEpochs {
		return p.fail(fmt.Errorf("flow: pass %d: want 0 to %d", k, int64(maxEpochs)))
	}
	q := p.clone()
	q.pass = k
	return q
}

// firstEpoch returns the first epoch a run of p reads (see Pass).
func (p *Pipeline) firstEpoch() int64 {
	n := p.epochCount()
	if n == Forever {
		n = 1
	}
	return p.pass * n
}

// sourceEpochs returns the epoch count a source asks for with a method
// Epochs() int64, or 0 (one epoch) if it has none.
func sourceEpochs(src any) int64 {
	e, ok := src.(interface{ Epochs() int64 })
	if !ok {
		return 0
	}
	switch n := e.Epochs(); {
	case n < 0:
		return Forever
	case n > maxEpochs:
		return maxEpochs
	default:
		return n
	}
}

// epochCount returns the number of epochs of a run, Forever for no end.
func (p *Pipeline) epochCount() int64 {
	if p.epochs == 0 {
		return 1
	}
	return p.epochs
}

// partitions yields the source's partitions of every epoch of a run, each
// epoch planned with its number in env, with partition numbers carrying the
// epoch.
func (p *Pipeline) partitions(ctx context.Context, env Env) iter.Seq2[srcPart, error] {
	return func(yield func(srcPart, error) bool) {
		n := p.epochCount()
		first, from := env.Epoch, int64(math.MinInt64)
		if ck := env.ck; ck != nil && ck.from >= 0 {
			// A resumed run: earlier epochs are not planned, earlier
			// partitions are skipped unread.
			from = ck.from
			first = max(first, epoch.Of(from))
		}
		for e := first; n == Forever || e < env.Epoch+n; e++ {
			if e > maxEpochs {
				yield(srcPart{}, fmt.Errorf("flow: epoch %d exceeds the limit %d", e, int64(maxEpochs)))
				return
			}
			epochEnv := env
			epochEnv.Epoch = e
			if rc := env.ck; rc != nil && rc.source != nil && e == epoch.Of(rc.from) {
				epochEnv.Resume = rc.source // the source's own state: see Partition.State
			}
			some := false
			skip, markNext := 0, false
			if rc := env.ck; rc != nil && rc.seek != nil && rc.mode == seekPlan && e == rc.seek.epoch {
				var drop int64
				var ok bool
				var err error
				skip, drop, ok, err = seekPartitions(ctx, p.src.counter(), epochEnv, rc.seek.item)
				switch {
				case err != nil:
					yield(srcPart{}, fmt.Errorf("flow: resuming at At(%d, %d): %w", rc.seek.epoch, rc.seek.item, err))
					return
				case !ok:
					return // the epoch ends before the position: nothing to give
				}
				// The consumer drops the first drop items of the partition
				// after the skipped ones: its mark is set before the
				// partition is given out, so before the consumer sees it.
				rc.seekDrop.to.Row = drop
				markNext = true
			}
			for part, err := range p.src.partitions(ctx, epochEnv) {
				if err == nil && skip > 0 {
					skip--
					some = true
					continue
				}
				if err == nil && markNext {
					env.ck.seekDrop.to.Part = part.batch
					markNext = false
				}
				if err == nil && n != 1 && e == 0 && !inEpoch(part.batch) {
					// Later epochs are checked as they are numbered. The
					// source's name, which its Info may take time to give,
					// is asked for only on a failure.
					err = checkEpochPart(p.src.info().Name, 0, part.batch)
				}
				some = true
				if err == nil && part.batch < from {
					continue
				}
				if !yield(part, err) || err != nil {
					return
				}
			}
			if !some {
				return
			}
		}
	}
}

// inEpoch reports whether b can number a partition within one epoch.
func inEpoch(b int64) bool { return b >= 0 && b < 1<<epoch.Bits }

// checkEpochPart checks that a source numbered partition b of epoch e
// within one epoch's range.
func checkEpochPart(source string, e, b int64) error {
	if inEpoch(b) {
		return nil
	}
	return stageError(source, b, true, fmt.Errorf(
		"flow: partition number %d of epoch %d is outside [0, 2^%d): a source repeated by Epochs numbers the partitions of one epoch",
		b, e, epoch.Bits))
}
