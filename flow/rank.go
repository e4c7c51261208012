package flow

import (
	"fmt"

	"github.com/rowflow/rowflow/ranks"
)

// # Ranks
//
// A job that outgrows one process runs as world processes ("ranks"), each
// running the same pipeline. The rank and the world are said once, for
// the whole run, with [Pipeline.WithRank]; every source, stage and sink
// reads them from its [Env]. Rows are divided among the ranks in exactly
// one place: by the run's source, which must say that it divides its rows
// ([Info].Ranked). The dataset sources, slices and generators divide their
// rows evenly; a combination ([Concat], [Interleave], [Mix]) runs each of
// its inputs as the run's rank, so each input divides its own rows; a
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
// rank of world (0 <= rank < world <= [ranks.MaxWorld]). The default is
// rank 0 of 1. It is the one place where a run's rank is said: sources
// divide their rows by it, sinks name their files and manifests by it, and
// the pipeline's fingerprint covers it when the world is above 1.
//
// The pipeline's source must divide its rows among ranks (see [Info]);
// a run of a world above 1 fails before reading a row otherwise. The
// inputs of a combination take the rank of the run that reads the
// combination, and must not have one of their own.
func (p *Pipeline) WithRank(rank, world int) *Pipeline {
	if p.err != nil {
		return p
	}
	if world < 1 || world > ranks.MaxWorld || rank < 0 || rank >= world {
		return p.fail(fmt.Errorf("flow: WithRank(%d, %d): need 0 <= rank < world <= %d", rank, world, ranks.MaxWorld))
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
