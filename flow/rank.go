package flow

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/rowflow/rowflow/internal/api/limits"
)

// # Ranks
//
// A job that outgrows one process runs as world processes ("ranks"), each
// running the same pipeline. The rank and the world are said once, for
// the whole run, with [Pipeline.WithRank]; every source, stage and sink
// reads them from its [Env]. Rows are divided among the ranks in exactly
// one place: by the run's source, which must say that it divides its rows
// ([Info].Ranked). The dataset sources, slices and generators divide their
// rows evenly; a combination (operators.Concat, Interleave, Mix) runs each
// of its inputs as the run's rank, so each input divides its own rows; a
// source that cannot divide its rows (a channel, a go-streams source)
// is wrapped in operators.EvenRanks, which divides them and gives its
// source a world of one. A run of more than one rank whose source does
// not divide its rows fails before reading a row, so no combination of
// calls reads every row on every rank, or divides them twice.
//
// Package ranks reads the rank and world from the variables the
// launchers set (torchrun, Slurm, MPI, Kubernetes Indexed Jobs):
//
//	r, err := ranks.FromEnv()
//	...
//	p = p.WithRank(r.Rank, r.World)

// WithRank sets the rank and the world size of a run: this process is
// rank of world (0 <= rank < world <= 65536). The default is
// rank 0 of 1. It is the one place where a run's rank is said: sources
// divide their rows by it, sinks name their files and manifests by it, and
// the pipeline's fingerprint covers it when the world is above 1.
//
// The pipeline's source must divide its rows among ranks (see [Info]);
// a run of a world above 1 fails before reading a row otherwise. The rank
// is said once: WithRank on a pipeline that has one is an error. So the
// inputs of a combination, which take the rank of the run that reads the
// combination, must not have one of their own.
func (p *Pipeline) WithRank(rank, world int) *Pipeline {
	if p.err != nil {
		return p
	}
	if world < 1 || world > limits.MaxWorld || rank < 0 || rank >= world {
		return p.fail(fmt.Errorf("flow: WithRank(%d, %d): need 0 <= rank < world <= %d", rank, world, limits.MaxWorld))
	}
	if p.world != 0 {
		return p.fail(fmt.Errorf("flow: WithRank(%d, %d) on a pipeline that has a rank of its own (WithRank(%d, %d)): the rank is said once", rank, world, p.rank, p.world))
	}
	q := p.clone()
	q.rank, q.world = rank, world
	return q
}

// rankErr reports a run of more than one rank whose source does not
// divide its rows among the ranks.
func (p *Pipeline) rankErr() error {
	if p.world <= 1 {
		return nil
	}
	if info := p.src.info(); !info.Ranked {
		return fmt.Errorf("flow: the run is rank %d of %d, but source %q does not divide its rows among ranks, so every rank would read all of them; wrap it in operators.EvenRanks",
			p.rank, p.world, info.Name)
	}
	return nil
}

// rankRows counts, once per run, the rows every rank's source yields in
// the run's first epoch (see [Env.RankRows]).
type rankRows struct {
	src  RowCounter
	env  Env // the run's, without its per-stage parts
	once sync.Once
	rows []int64
	err  error
}

// newRankRows returns the counter of a run of p, or nil when the run has
// one rank or its source cannot count its rows.
func (p *Pipeline) newRankRows(env Env) *rankRows {
	rc := p.src.counter()
	if env.World <= 1 || rc == nil {
		return nil
	}
	return &rankRows{src: rc, env: Env{Seed: env.Seed, Fingerprint: env.Fingerprint, Epoch: env.Epoch, World: env.World}}
}

// RankRows returns, in a run of several ranks, how many rows the source
// yields to each rank in the epoch the stage was made for, when the
// source can count them without reading ([RowCounter]: the Parquet
// sources, slices, generators) and every stage between the source and
// the one asking gives one row for each of its input ([Info].OneToOne).
// ok is false otherwise (one rank, a source that cannot count, a filter
// in between). Sources that divide their rows by count (see
// [Pipeline.WithRank]) give every rank the same count in every epoch.
//
// Stages that must give every rank the same number of items, such as
// operators.Batch, ask for it. The counts are planned once per run, on
// the first call, with ctx; they read the footers of a Parquet dataset
// once per rank.
func (e Env) RankRows(ctx context.Context) (rows []int64, ok bool, err error) {
	rr := e.rankRows
	if rr == nil {
		return nil, false, nil
	}
	rr.once.Do(func() {
		for r := range rr.env.World {
			env := rr.env
			env.Rank = r
			counts, err := rr.src.RowCounts(ctx, env)
			if err != nil {
				rr.err = fmt.Errorf("flow: counting the rows of rank %d of %d: %w", r, env.World, err)
				return
			}
			var n int64
			for _, c := range counts {
				n += c
			}
			rr.rows = append(rr.rows, n)
		}
	})
	if rr.err != nil {
		return nil, false, rr.err
	}
	return slices.Clone(rr.rows), true, nil
}

// oneToOneBefore reports whether every stage before position k gives one
// row for each of its input.
func (p *Pipeline) oneToOneBefore(k int) bool {
	for _, s := range p.stages[1:k] {
		if !s.op.info().OneToOne {
			return false
		}
	}
	return true
}
