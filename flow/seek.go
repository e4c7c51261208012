package flow

import (
	"context"
)

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
