package flow

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
)

// Tracker follows a run of a pipeline so that a [Checkpoint] can be taken
// after any item the run has delivered. Attach it with
// [Pipeline.Checkpoints]; it follows the most recent run started with it.
//
//	t := new(flow.Tracker)
//	for v, err := range flow.Values[int](ctx, p.Checkpoints(t)) {
//		...
//		ck, err := t.Checkpoint() // the position after v
//	}
//
// With [Items], [Values] and [Chunks], the position is the one after the
// last item (chunk) the loop received; with [Pipeline.Run], after the
// last chunk the sink consumed. With a [CursorSet], after every item its
// cursors had handed out (see [CursorSet]).
//
// Following a run costs nothing per item for a sink and a few
// nanoseconds per item for the iterators, plus, for each stage that keeps
// rows across partitions, one call of its Checkpoint method per chunk it
// pushes. A pipeline without a tracker pays nothing.
type Tracker struct {
	mu      sync.Mutex
	started bool
	fp      string
	def     []string // the pipeline's definition: see Checkpoint.Definition
	pos     Mark
	final   int        // the position of the pipeline's last stage
	seeking bool       // the run seeks and has not reached its position
	stages  []*history // by position
	err     error      // a stage that cannot be checkpointed
	// set gives the position of a cursor set's run: its first partition
	// not wholly delivered, its number of cursors and what they held.
	set func() (Mark, int, []heldPart)
}

// history is what a tracker keeps of one stateful stage: its states after
// the chunks it pushed, oldest first, and its output position.
type history struct {
	pos     int
	name    string
	proc    Checkpointer
	out     Mark // after the chunks pushed so far; owned by the stage's goroutine
	entries []histEntry
	limit   int // prune when entries grows past it
}

type histEntry struct {
	out, in Mark
	ended   bool // the chunk pushed ended partition out.Part
	state   any  // nil: the stage's start
}

// begin starts following a run of the pipeline with fingerprint fp,
// whose consumer starts at pos.
func (t *Tracker) begin(fp string, def []string, pos Mark, final int, seeking bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.started, t.fp, t.pos, t.final, t.stages, t.err, t.set = true, fp, pos, final, nil, nil, nil
	t.def = def
	t.seeking = seeking
}

// refuse makes every checkpoint of the run fail with err.
func (t *Tracker) refuse(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
}

// register adds the processor of the stateful stage at position pos. A
// resumed stage starts from the state it was resumed with.
func (t *Tracker) register(pos int, name string, proc any, resumed *stageState) *history {
	t.mu.Lock()
	defer t.mu.Unlock()
	cp, ok := proc.(Checkpointer)
	if !ok {
		if t.err == nil {
			t.err = fmt.Errorf("flow: stage %q keeps rows across partitions and does not report checkpoints (Checkpointer)", name)
		}
		return nil
	}
	h := &history{pos: pos, name: name, proc: cp, out: streamStart, limit: 64}
	first := histEntry{out: streamStart, in: streamStart}
	if resumed != nil && resumed.State != nil {
		h.out = resumed.Out
		first.out, first.in, first.state = resumed.Out, resumed.In, resumed.State
	}
	h.entries = append(h.entries, first)
	t.stages = append(t.stages, h)
	slices.SortFunc(t.stages, func(a, b *history) int { return a.pos - b.pos })
	return h
}

// registerSource adds the source, which keeps state across partitions
// (Info.Serial): its states are recorded at its partitions' starts.
func (t *Tracker) registerSource(name string) *history {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.stages) > 0 && t.stages[0].pos == 0 {
		return t.stages[0] // registered in an earlier epoch of the run
	}
	h := &history{pos: 0, name: name, out: streamStart, limit: 64}
	h.entries = append(h.entries, histEntry{out: streamStart, in: streamStart})
	t.stages = append([]*history{h}, t.stages...)
	return h
}

// sourceAt records the source's state at the start of partition part.
func (t *Tracker) sourceAt(h *history, part int64, state any) {
	t.mu.Lock()
	h.entries = append(h.entries, histEntry{out: Mark{Part: part}, in: Mark{Part: part}, state: state})
	if len(h.entries) > h.limit {
		t.prune()
		h.limit = max(64, 2*len(h.entries))
	}
	t.mu.Unlock()
}

// pushed records the stage's state after it pushed a chunk of n items of
// partition part, which ended it if end. It runs in the stage's goroutine.
func (t *Tracker) pushed(h *history, part int64, n int, end bool) {
	if part != h.out.Part {
		h.out = Mark{Part: part}
	}
	h.out.Row += int64(n)
	state, in := h.proc.Checkpoint()
	t.mu.Lock()
	h.entries = append(h.entries, histEntry{out: h.out, in: in, ended: end, state: state})
	if len(h.entries) > h.limit {
		t.prune()
		h.limit = max(64, 2*len(h.entries))
	}
	t.mu.Unlock()
}

// delivered moves the consumer's position past n items of partition
// part.
func (t *Tracker) delivered(part int64, n int) {
	t.mu.Lock()
	t.seeking = false
	if part != t.pos.Part {
		t.pos = Mark{Part: part}
	}
	t.pos.Row += int64(n)
	t.mu.Unlock()
}

// resolve returns, for each stateful stage, the index of the history
// entry a checkpoint at the consumer's position uses: from the last stage
// back, the latest entry whose output lies at or before where the stage
// after it (or the consumer) needs its input from. Stages keep partition
// numbers but may change row counts, so across other stages only the
// start of the needed partition is compared; a stage that feeds the next
// directly is resolved at the row. Input needed from row r of partition
// p includes p's end, so an entry that ended p at row r is not at or
// before it: resumed from there, the stage would not give p's end again,
// and a stage after it that counts its input partitions (BlockShuffle)
// would miss an empty one. t.mu is held.
func (t *Tracker) resolve() []int {
	idx := make([]int, len(t.stages))
	need, from := t.pos, t.final // what is needed, and by the stage at from+1
	for k := len(t.stages) - 1; k >= 0; k-- {
		h := t.stages[k]
		target := need
		if h.pos != from && target != streamStart {
			target = Mark{Part: need.Part}
		}
		es := h.entries
		i := sort.Search(len(es), func(i int) bool {
			return target.before(es[i].out) || es[i].ended && es[i].out == target
		}) - 1
		i = max(i, 0) // entry 0 is where the stage started
		idx[k] = i
		need, from = es[i].in, h.pos-1
	}
	return idx
}

// prune drops the entries no checkpoint can need any more: the consumer
// only moves forward. t.mu is held.
func (t *Tracker) prune() {
	for k, i := range t.resolve() {
		h := t.stages[k]
		h.entries = slices.Delete(h.entries, 0, i)
	}
}

// Checkpoint returns the position after the last item the followed run
// delivered. Call it from the loop that ranges over the items, or after
// the run; with [Pipeline.Run], from any goroutine. It fails if no run
// was started with t, or if a stage that keeps rows across partitions
// cannot report its state.
func (t *Tracker) Checkpoint() (Checkpoint, error) {
	t.mu.Lock()
	set := t.set
	t.mu.Unlock()
	var n int
	var held []heldPart
	var pos Mark
	if set != nil {
		pos, n, held = set() // before t.mu: the cursors move t.pos under it
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if set != nil && t.set != nil && t.pos.before(pos) {
		t.pos = pos
	}
	switch {
	case !t.started:
		return Checkpoint{}, errors.New("flow: Tracker.Checkpoint: no run was started with this tracker (see Pipeline.Checkpoints)")
	case t.err != nil:
		return Checkpoint{}, t.err
	case t.seeking:
		return Checkpoint{}, errors.New("flow: Tracker.Checkpoint: the run has not reached the position it was resumed at (At) yet")
	}
	ck := Checkpoint{version: checkpointVersion, fingerprint: t.fp, part: t.pos.Part, delivered: t.pos.Row, definition: t.def}
	if set != nil && t.set != nil {
		ck.part, ck.delivered, ck.cursors, ck.held = pos.Part, pos.Row, n, held
	}
	for k, i := range t.resolve() {
		h, e := t.stages[k], t.stages[k].entries[i]
		s := stageState{Position: h.pos, Out: e.out, In: e.in}
		if e.state != nil {
			b, err := json.Marshal(e.state)
			if err != nil {
				return Checkpoint{}, fmt.Errorf("flow: stage %q: encoding its checkpoint: %w", h.name, err)
			}
			s.State = b
		}
		ck.stages = append(ck.stages, s)
	}
	return ck, nil
}
