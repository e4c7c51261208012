package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/rowflow/rowflow/internal/pcg"
)

// mergerState is a combination's part of a checkpoint: where each input
// stood when an output partition started, and the merger's own counters.
// Each input's position is a checkpoint of that input, so resuming a
// combination resumes each input, whatever stages it has.
type mergerState struct {
	Part  int64       `json:"part"` // the output partition, epoch included
	Fresh bool        `json:"fresh,omitempty"`
	Draws int64       `json:"draws,omitempty"` // mix: draws made in the epoch
	Slots []int       `json:"slots,omitempty"` // interleave
	Open  int         `json:"opened,omitempty"`
	Slot  int         `json:"slot,omitempty"`
	Taken int         `json:"taken,omitempty"`
	Lanes []laneState `json:"lanes"`
}

// laneState is one input's position: its run, and in it the checkpoint
// after the chunks it had pulled before the one it was taking from (nil
// at the run's start) and how many rows of what follows were taken.
type laneState struct {
	Runs   int64       `json:"runs"`
	Rows   int64       `json:"rows"`
	RanOut bool        `json:"ran_out,omitempty"`
	Done   bool        `json:"done,omitempty"`
	Open   bool        `json:"open,omitempty"`
	At     *Checkpoint `json:"at,omitempty"`
	Skip   int         `json:"skip,omitempty"`
}

// snapshot returns the merger's state at the start of output partition
// part, or an error if an input cannot be checkpointed.
func (m *merger[T]) snapshot(part int64) (mergerState, error) {
	st := mergerState{Part: part, Fresh: !m.started}
	if !m.started {
		return st, nil
	}
	st.Draws, st.Slots, st.Open, st.Slot, st.Taken = m.draws, append([]int(nil), m.slots...), m.opened, m.slot, m.taken
	for _, l := range m.lanes {
		if l.atErr != nil {
			return st, fmt.Errorf("%s input %d: %w", m.c.kind, l.input, l.atErr)
		}
		ls := laneState{Runs: l.runs, Rows: l.rows, RanOut: l.ranOut, Done: l.done, Open: l.next != nil, At: l.at, Skip: l.k + l.skip}
		if ls.Open && l.pulled && l.k >= len(l.cur.Values) {
			// The chunk is used up: the position is after it.
			ck, err := l.tr.Checkpoint()
			if err != nil {
				return st, fmt.Errorf("%s input %d: %w", m.c.kind, l.input, err)
			}
			ls.At, ls.Skip = &ck, l.skip
		}
		st.Lanes = append(st.Lanes, ls)
	}
	return st, nil
}

// resume sets up a new merger from a state: each open input resumes from
// its checkpoint, and the mix's stream is advanced past its draws.
func (m *merger[T]) resume(ctx context.Context, st mergerState) error {
	if st.Fresh {
		return nil
	}
	if len(st.Lanes) != len(m.lanes) {
		return fmt.Errorf("flow: %s: the checkpoint has %d inputs, the pipeline %d", m.c.kind, len(st.Lanes), len(m.lanes))
	}
	m.started = true
	m.draws, m.slots, m.opened, m.slot, m.taken = st.Draws, st.Slots, st.Open, st.Slot, st.Taken
	for i, ls := range st.Lanes {
		l := m.lanes[i]
		l.ranOut, l.done = ls.RanOut, ls.Done
		if ls.Open {
			l.runs = ls.Runs - 1
			m.runFrom(ctx, l, ls.At)
			l.skip = ls.Skip
		} else {
			l.runs = ls.Runs
		}
		l.rows = ls.Rows
	}
	if m.c.weights != nil {
		m.rng = pcg.Keyed(m.env.Seed, uint64(m.env.Epoch), uint64(m.env.Position), purposeMix)
		m.rng.Advance(m.draws)
		for i, w := range m.c.weights {
			if w > 0 && !m.lanes[i].done {
				m.active = append(m.active, i)
			}
		}
		m.weigh()
	}
	return nil
}

// runFrom starts lane l's next run, from checkpoint at if it is not nil.
func (m *merger[T]) runFrom(ctx context.Context, l *lane[T], at *Checkpoint) {
	in := m.c.inputs[l.input]
	n := in.epochCount()
	if n == Forever {
		n = 1
	}
	q := in.clone()
	q.rank, q.world = m.env.Rank, m.env.World // the run's rank: see WithRank
	q.epoch0 = (m.env.Epoch + l.runs) * n
	l.runs++
	l.rows, l.k, l.skip, l.cur, l.pulled, l.at, l.atErr = 0, 0, 0, Chunk[T]{}, false, nil, nil
	if m.track {
		if l.tr == nil {
			l.tr = new(Tracker)
		}
		q = q.Checkpoints(l.tr)
	}
	if at != nil {
		q = q.Resume(*at)
		l.at = at
	}
	l.next, l.stop = iter.Pull2(chunks[T](ctx, q))
}

// sourceCheckpointer is implemented by sources that keep state across
// their partitions (the combinations): a tracker records their state at
// each partition's start, and a resumed run gives it back in Env.Resume.
type sourceCheckpointer interface {
	checkpointsState()
}

func (c *combined[T]) checkpointsState() {}

// decodeMergerState decodes a combination's resume state.
func decodeMergerState(kind string, b json.RawMessage) (mergerState, error) {
	var st mergerState
	if err := decodeState(b, &st); err != nil {
		return st, fmt.Errorf("flow: %s: resuming: %w", kind, err)
	}
	return st, nil
}
