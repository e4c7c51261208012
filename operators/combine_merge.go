package operators

import (
	"context"
	"fmt"
	"iter"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// purposeMix keys Mix's stream: (seed, epoch, position, purposeMix). It
// shares its number with purposeTable, a stage's, whose position is never
// the source's 0.
const purposeMix = 5

// combineChunk is the most rows a combination's chunk carries.
const combineChunk = 1024

// lane is one input of a combination: its current run, pulled chunk by
// chunk, and the chunk being taken from.
type lane[T any] struct {
	input  int
	comb   rowid.Combiner
	next   func() (flow.Chunk[T], error, bool)
	stop   func()
	cur    flow.Chunk[T]
	ids    []rowid.ID // cur's IDs combined with the input's
	k      int        // rows of cur taken
	rows   int64      // rows taken from the current run
	runs   int64      // runs started in this epoch
	ranOut bool       // has run out at least once in this epoch
	done   bool       // dropped
	// For checkpoints: the run's tracker, the position before cur (nil
	// at the run's start) and why it could not be taken; rows of the
	// resumed run still to skip; whether a chunk was pulled.
	tr     *flow.Tracker
	at     *flow.Checkpoint
	atErr  error
	skip   int
	pulled bool
}

// merger takes one epoch of a combination's rows from its lanes.
type merger[T any] struct {
	c       *combined[T]
	env     flow.Env
	lanes   []*lane[T]
	started bool
	rng     pcg.Rand
	active  []int      // mix: lanes still drawn from
	cum     []uint64   // mix: cumulative weights of active
	table   [256]int16 // mix: the index into active for each top byte of a draw, -1 if it spans two
	slots   []int      // interleave: the open lanes, in round order
	opened  int        // interleave: lanes opened so far
	slot    int        // interleave: the slot being taken from
	taken   int        // interleave: rows of the current block taken
	ended   bool
	draws   int64 // mix: draws made in the epoch
	track   bool  // the run is followed by a Tracker: inputs are too
}

func newMerger[T any](c *combined[T], env flow.Env) *merger[T] {
	m := &merger[T]{c: c, env: env}
	for i := range c.inputs {
		m.lanes = append(m.lanes, &lane[T]{input: i, comb: rowid.NewCombiner(inputID(i))})
	}
	return m
}

// start starts the runs the epoch begins with.
func (m *merger[T]) start(ctx context.Context) {
	m.started = true
	if m.c.weights != nil {
		m.rng = pcg.Keyed(m.env.Seed, uint64(m.env.Epoch), uint64(m.env.Position), purposeMix)
		for i, w := range m.c.weights {
			if w > 0 {
				m.active = append(m.active, i)
			} else {
				m.lanes[i].done = true
			}
		}
		m.weigh()
		for _, i := range m.active {
			m.run(ctx, m.lanes[i])
		}
		return
	}
	for m.opened < m.c.cycle {
		m.slots = append(m.slots, m.opened)
		m.run(ctx, m.lanes[m.opened])
		m.opened++
	}
}

// run starts lane l's next run.
func (m *merger[T]) run(ctx context.Context, l *lane[T]) { m.runFrom(ctx, l, nil) }

// weigh recomputes the cumulative weights of the active lanes, and the
// table that picks an input from a draw's top byte without a search
// wherever the byte's whole range falls to one input.
func (m *merger[T]) weigh() {
	m.cum = m.cum[:0]
	var sum uint64
	for _, i := range m.active {
		sum += m.c.weights[i]
		m.cum = append(m.cum, sum)
	}
	if len(m.cum) == 0 {
		return
	}
	for b := range m.table {
		lo, hi := m.pick(uint32(b)<<24), m.pick(uint32(b)<<24|1<<24-1)
		m.table[b] = -1
		if lo == hi {
			m.table[b] = int16(lo)
		}
	}
}

// pick returns the index into active that draw u selects.
func (m *merger[T]) pick(u uint32) int {
	x := uint64(u) * m.cum[len(m.cum)-1] >> 32
	j := 0
	for x >= m.cum[j] {
		j++
	}
	return j
}

// ready makes sure l has a row to take. It returns false if l's run has
// ended, after stopping it.
func (m *merger[T]) ready(l *lane[T]) (bool, error) {
	for l.k >= len(l.cur.Values) {
		l.cur.Release()
		l.k = 0
		if l.pulled && l.tr != nil {
			if ck, err := l.tr.Checkpoint(); err != nil {
				l.atErr = err
			} else {
				l.at = &ck
			}
		}
		c, err, ok := l.next()
		l.pulled = true
		if err != nil {
			return false, fmt.Errorf("%s input %d: %w", m.c.cfg.name, l.input, err)
		}
		if !ok {
			l.cur = flow.Chunk[T]{}
			l.stop()
			l.next, l.stop = nil, nil
			return false, nil
		}
		l.cur = c
		l.ids = c.IDs.AppendTo(l.ids[:0])
		for i, id := range l.ids {
			l.ids[i] = l.comb.Combine(id)
		}
		if l.skip > 0 {
			// A resumed run: rows taken before the checkpoint.
			l.k = min(l.skip, len(c.Values))
			l.skip -= l.k
		}
	}
	return true, nil
}

// exhausted applies the policy to a lane whose run has ended. It reports
// whether the epoch goes on.
func (m *merger[T]) exhausted(ctx context.Context, l *lane[T]) bool {
	switch m.c.cfg.policy {
	case exhaustedStop:
		return false
	case exhaustedCycle:
		l.ranOut = true
		if l.rows > 0 && !m.allRanOut() {
			m.run(ctx, l)
			return true
		}
	}
	l.done = true
	if m.c.weights != nil {
		m.drop(l.input)
		return len(m.active) > 0 && !(m.c.cfg.policy == exhaustedCycle && m.allRanOut())
	}
	return m.replace(ctx) && !(m.c.cfg.policy == exhaustedCycle && m.allRanOut())
}

func (m *merger[T]) allRanOut() bool {
	for _, l := range m.lanes {
		if !l.ranOut && !l.done && (m.c.weights == nil || m.c.weights[l.input] > 0) {
			return false
		}
	}
	return true
}

// drop removes input i from a mix's draws.
func (m *merger[T]) drop(i int) {
	for j, a := range m.active {
		if a == i {
			m.active = append(m.active[:j], m.active[j+1:]...)
			break
		}
	}
	m.weigh()
}

// replace gives an interleave's current slot to the next input not yet
// opened, whose first turn comes when the round is back at the slot, as
// in tf.data, or removes the slot. Either way the turn passes to the next
// slot. It reports whether any slot is left.
func (m *merger[T]) replace(ctx context.Context) bool {
	m.taken = 0
	if m.opened < len(m.lanes) {
		m.slots[m.slot] = m.opened
		m.run(ctx, m.lanes[m.opened])
		m.opened++
		m.slot = (m.slot + 1) % len(m.slots)
		return true
	}
	m.slots = append(m.slots[:m.slot], m.slots[m.slot+1:]...)
	if m.slot >= len(m.slots) {
		m.slot = 0
	}
	return len(m.slots) > 0
}

// fill pushes output partition b: up to PartitionItems rows, then its End.
// It reports whether the epoch has ended.
func (m *merger[T]) fill(ctx context.Context, b int64, out flow.Emitter[T]) (bool, error) {
	if !m.started {
		m.start(ctx)
	}
	o := &mergeOut[T]{batch: b}
	var err error
	if m.c.weights != nil {
		err = m.fillMix(ctx, o, out)
	} else {
		err = m.fillRounds(ctx, o, out)
	}
	if err != nil {
		o.release()
		return false, err
	}
	return m.ended, o.push(ctx, out, true)
}

// fillMix draws rows until the partition is full or the epoch ends. Its
// inner loop takes one row per draw without calls, while the drawn
// lane's chunk has rows; a lane that needs its next chunk, or has run
// out, goes through ready and exhausted with the state stored back.
func (m *merger[T]) fillMix(ctx context.Context, o *mergeOut[T], out flow.Emitter[T]) error {
	for o.n < m.c.cfg.perPart && !m.ended {
		if o.vals == nil {
			o.vals, o.ids = slicepool.Alloc[T](combineChunk), slicepool.Alloc[rowid.ID](combineChunk)
		}
		room := min(m.c.cfg.perPart-o.n, combineChunk-len(o.vals))
		vals, ids, rng, draws := o.vals, o.ids, m.rng, m.draws
		var wait *lane[T] // a drawn lane whose chunk has no row left
		for range room {
			u := rng.Next()
			draws++
			j := int(m.table[u>>24])
			if j < 0 {
				j = m.pick(u)
			}
			l := m.lanes[m.active[j]]
			if l.k >= len(l.cur.Values) {
				wait = l
				break
			}
			vals, ids = append(vals, l.cur.Values[l.k]), append(ids, l.ids[l.k])
			l.k++
			l.rows++
		}
		o.n += len(vals) - len(o.vals)
		o.vals, o.ids, m.rng, m.draws = vals, ids, rng, draws
		if wait != nil {
			ok, err := m.ready(wait)
			if err != nil {
				return err
			}
			if !ok {
				m.ended = !m.exhausted(ctx, wait)
				continue
			}
			o.add(wait, 1)
		}
		if err := o.flush(ctx, out); err != nil {
			return err
		}
	}
	return nil
}

// fillRounds takes blocks in round order until the partition is full or
// the epoch ends.
func (m *merger[T]) fillRounds(ctx context.Context, o *mergeOut[T], out flow.Emitter[T]) error {
	for o.n < m.c.cfg.perPart && !m.ended {
		l := m.lanes[m.slots[m.slot]]
		ok, err := m.ready(l)
		if err != nil {
			return err
		}
		if !ok {
			m.ended = !m.exhausted(ctx, l)
			continue
		}
		k := min(m.c.block-m.taken, len(l.cur.Values)-l.k, m.c.cfg.perPart-o.n, combineChunk-len(o.vals))
		o.add(l, k)
		m.taken += k
		if m.taken == m.c.block {
			m.taken = 0
			m.slot = (m.slot + 1) % len(m.slots)
		}
		if err := o.flush(ctx, out); err != nil {
			return err
		}
	}
	return nil
}

// close stops every run still going.
func (m *merger[T]) close() {
	for _, l := range m.lanes {
		l.cur.Release()
		if l.stop != nil {
			l.stop()
		}
	}
}

// mergeOut builds the chunks of one output partition.
type mergeOut[T any] struct {
	batch int64
	n     int // rows of the partition so far
	vals  []T
	ids   []rowid.ID
}

// add takes k rows of l's current chunk.
func (o *mergeOut[T]) add(l *lane[T], k int) {
	if o.vals == nil {
		o.vals, o.ids = slicepool.Alloc[T](combineChunk), slicepool.Alloc[rowid.ID](combineChunk)
	}
	if k == 1 {
		o.vals, o.ids = append(o.vals, l.cur.Values[l.k]), append(o.ids, l.ids[l.k])
	} else {
		o.vals = append(o.vals, l.cur.Values[l.k:l.k+k]...)
		o.ids = append(o.ids, l.ids[l.k:l.k+k]...)
	}
	l.k += k
	l.rows += int64(k)
	o.n += k
}

// flush pushes a full chunk.
func (o *mergeOut[T]) flush(ctx context.Context, out flow.Emitter[T]) error {
	if len(o.vals) < combineChunk {
		return nil
	}
	return o.push(ctx, out, false)
}

func (o *mergeOut[T]) push(ctx context.Context, out flow.Emitter[T], end bool) error {
	c := flow.Chunk[T]{Part: o.batch, IDs: flow.ListIDs(o.ids), Values: o.vals, End: end}
	o.vals, o.ids = nil, nil
	return out.Push(ctx, c)
}

func (o *mergeOut[T]) release() {
	slicepool.Recycle(o.vals)
	slicepool.Recycle(o.ids)
	o.vals, o.ids = nil, nil
}

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
	Runs   int64            `json:"runs"`
	Rows   int64            `json:"rows"`
	RanOut bool             `json:"ran_out,omitempty"`
	Done   bool             `json:"done,omitempty"`
	Open   bool             `json:"open,omitempty"`
	At     *flow.Checkpoint `json:"at,omitempty"`
	Skip   int              `json:"skip,omitempty"`
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
			return st, fmt.Errorf("%s input %d: %w", m.c.cfg.name, l.input, l.atErr)
		}
		ls := laneState{Runs: l.runs, Rows: l.rows, RanOut: l.ranOut, Done: l.done, Open: l.next != nil, At: l.at, Skip: l.k + l.skip}
		if ls.Open && l.pulled && l.k >= len(l.cur.Values) {
			// The chunk is used up: the position is after it.
			ck, err := l.tr.Checkpoint()
			if err != nil {
				return st, fmt.Errorf("%s input %d: %w", m.c.cfg.name, l.input, err)
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
		return fmt.Errorf("operators: %s: the checkpoint has %d inputs, the pipeline %d", m.c.cfg.name, len(st.Lanes), len(m.lanes))
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
func (m *merger[T]) runFrom(ctx context.Context, l *lane[T], at *flow.Checkpoint) {
	// The run's rank (the input has none of its own: see checkInput), and
	// fresh epochs for each run of the input.
	q := linkage.Pass(m.c.inputs[l.input].WithRank(m.env.Rank, m.env.World), m.env.Epoch+l.runs).(*flow.Pipeline)
	l.runs++
	l.rows, l.k, l.skip, l.cur, l.pulled, l.at, l.atErr = 0, 0, 0, flow.Chunk[T]{}, false, nil, nil
	if m.track {
		if l.tr == nil {
			l.tr = new(flow.Tracker)
		}
		q = q.Checkpoints(l.tr)
	}
	if at != nil {
		q = q.Resume(*at)
		l.at = at
	}
	l.next, l.stop = iter.Pull2(flow.Chunks[T](ctx, q))
}
