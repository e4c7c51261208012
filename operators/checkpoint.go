package operators

import (
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/strictjson"
)

// # Checkpoints
//
// The processors of the stages that keep rows across partitions (the
// shuffles, the regrouping stages, Take) implement flow.Checkpointer: after
// each chunk they push, Checkpoint reports their state, a few integers
// (opaque inside the checkpoint) and never the rows they hold,
// with the [flow.Mark] of their input from which a new processor, resumed with
// that state (flow.Env.Resume), gives exactly the rest of their output. The
// input restarts at the oldest row the stage still holds; what the stage
// had already given out again is computed, not stored, and discarded.
//
// [IndexShuffle], [EvenRanks] and [Cache] hold nothing between partitions:
// they give the same partitions, numbered alike, every time an epoch is
// planned, so a run resumes in them by starting at a partition number.
// [Concat], [Interleave] and [Mix] keep state across their partitions and
// give it with each (flow.Partition.State): each input's checkpoint and a
// few counts, from which a resumed run starts at that partition.
// [Prefetch] holds chunks that are produced again.

// before reports whether m comes before o in the stream.
func before(m, o flow.Mark) bool {
	return m.Part < o.Part || m.Part == o.Part && m.Row < o.Row
}

// resumeState decodes the state a processor resumes from (env.Resume) into
// a new S, or returns nil when the run starts afresh.
func resumeState[S any](name string, env flow.Env) (*S, error) {
	if env.Resume == nil {
		return nil, nil
	}
	s := new(S)
	if err := strictjson.Decode(env.Resume, s); err != nil {
		return nil, fmt.Errorf("operators: %s: resume state: %w", name, err)
	}
	return s, nil
}
