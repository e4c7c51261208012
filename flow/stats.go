package flow

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a run's counters, taken by [Monitor.Snapshot]
// while the run goes on or after it ended. Each goroutine of the run
// publishes its counts every 8 chunks and whenever it waits for input, so
// while the run goes on a snapshot lags by at most 8 chunks per goroutine;
// once the run has ended it is exact. Times are measured with a clock of
// millisecond resolution, which makes them right on average, not per
// chunk.
type Stats struct {
	// Elapsed is the time since the run started, up to its end once it
	// has ended.
	Elapsed time.Duration
	// Stages holds the source (position 0), each stage, and last the sink
	// or the loop reading the pipeline (name "loop").
	Stages []StageStats
	// Rows is the number of rows the source has produced, Delivered the
	// number of items that reached the sink or the loop, and Rate is Rows
	// per second of Elapsed.
	Rows, Delivered int64
	Rate            float64
	// TotalRows is the number of rows the source will produce when known
	// (from Monitor.TotalRows or the source's [RowCounter]), else 0.
	// Remaining estimates the time left from Rate when TotalRows is
	// known, else 0.
	TotalRows int64
	Remaining time.Duration
	// Ended is set once the run has ended.
	Ended bool
}

// StageStats are one stage's counters, summed over its workers.
type StageStats struct {
	Name     string
	Position int // 0 for the source, as in Env.Position
	Workers  int
	// Items and chunks the stage received and pushed on. A source only
	// pushes; a sink or loop only receives.
	ItemsIn, ItemsOut, ChunksIn, ChunksOut int64
	// Busy is the time spent in the stage's own code: Process and Flush,
	// a source's Read, a sink's Consume, a loop's body; summed over the
	// workers, so it can exceed Elapsed. BlockedIn is the time its
	// goroutines waited for input, BlockedOut the time they waited to
	// hand output to another goroutine.
	Busy, BlockedIn, BlockedOut time.Duration
	// Queue is the number of chunks the stage before it has pushed and
	// this stage has not yet received: chunks waiting in channels and
	// partition buffers in front of it.
	Queue int64
}

// LogValue makes a Stats a group of slog attributes, one group per stage.
func (s Stats) LogValue() slog.Value {
	attrs := []slog.Attr{slog.Duration("elapsed", s.Elapsed)}
	for _, st := range s.Stages {
		attrs = append(attrs, slog.Group(st.Name,
			slog.Int("position", st.Position), slog.Int("workers", st.Workers),
			slog.Int64("items_in", st.ItemsIn), slog.Int64("items_out", st.ItemsOut),
			slog.Int64("chunks_in", st.ChunksIn), slog.Int64("chunks_out", st.ChunksOut),
			slog.Duration("busy", st.Busy), slog.Duration("blocked_in", st.BlockedIn),
			slog.Duration("blocked_out", st.BlockedOut), slog.Int64("queue", st.Queue)))
	}
	return slog.GroupValue(attrs...)
}

// slot holds one goroutine's published counters for one stage. Only its
// goroutine's meter writes them; snapshots read them.
type slot struct {
	itemsIn, itemsOut, chunksIn, chunksOut atomic.Int64
	busy, blockedIn, blockedOut            atomic.Int64 // nanoseconds
	// state is what the goroutine does in the stage: idle (0), inside
	// the stage's own code on batch b (b+1), or waiting to hand its
	// output to another goroutine (blockedOut).
	state atomic.Int64
	next  *slot    // the next stage's slot in the same goroutine, if any
	_     [64]byte // keep other goroutines' slots off this cache line
}

const blockedOut = -1

// stageStats is one stage's slots.
type stageStats struct {
	name    string
	pos     int
	workers int
	mu      sync.Mutex
	slots   []*slot
	byHead  map[any]*meter // a source's meter per worker chain
}

func (st *stageStats) newSlot() *slot {
	s := &slot{}
	st.mu.Lock()
	st.slots = append(st.slots, s)
	st.mu.Unlock()
	return s
}

// sourceMeter returns the source's meter for the worker whose chain
// starts at head: one meter per worker, which reads partitions one after
// another.
func (rs *runStats) sourceMeter(head any) *meter {
	st := rs.stages[0]
	st.mu.Lock()
	m, ok := st.byHead[head]
	st.mu.Unlock()
	if !ok {
		m = newMeter(rs, st.newSlot(), head)
		st.mu.Lock()
		st.byHead[head] = m
		st.mu.Unlock()
	}
	return m
}

// runStats are the counters of one run.
type runStats struct {
	m      *Monitor
	cfg    monitorConfig // m's settings when the run started
	start  time.Time
	stages []*stageStats // by position; the last is the sink or the loop
	total  atomic.Int64
	ended  atomic.Int64 // run time in nanoseconds once ended, else 0
	// clock is the run's coarse clock: nanoseconds since start, set by
	// the run's watchdog every clockTick. Reading it costs an atomic
	// load where reading the system clock costs tens of nanoseconds;
	// the durations it gives are right on average.
	clock  atomic.Int64
	mu     sync.Mutex
	meters []*meter
}

// clockTick is the resolution of a run's coarse clock.
const clockTick = time.Millisecond

func newRunStats(m *Monitor, p *Pipeline, sink string) *runStats {
	rs := &runStats{m: m, cfg: m.config(), start: time.Now()}
	for i, s := range p.stages {
		name := p.src.info().Name
		if s.op != nil {
			name = s.op.info().Name
		}
		rs.stages = append(rs.stages, &stageStats{name: name, pos: i, workers: s.n})
	}
	rs.stages[0].byHead = map[any]*meter{}
	rs.clock.Store(1)
	rs.stages = append(rs.stages, &stageStats{name: sink, pos: len(p.stages), workers: 1})
	rs.total.Store(rs.cfg.totalRows)
	return rs
}

// sink returns the stats of the sink or loop.
func (rs *runStats) sink() *stageStats { return rs.stages[len(rs.stages)-1] }

func (rs *runStats) snapshot() Stats {
	s := Stats{TotalRows: rs.total.Load()}
	if e := rs.ended.Load(); e != 0 {
		s.Elapsed, s.Ended = time.Duration(e), true
	} else {
		s.Elapsed = time.Since(rs.start)
	}
	for i, st := range rs.stages {
		out := StageStats{Name: st.name, Position: st.pos, Workers: st.workers}
		st.mu.Lock()
		for _, sl := range st.slots {
			out.ItemsIn += sl.itemsIn.Load()
			out.ItemsOut += sl.itemsOut.Load()
			out.ChunksIn += sl.chunksIn.Load()
			out.ChunksOut += sl.chunksOut.Load()
			out.Busy += time.Duration(sl.busy.Load())
			out.BlockedIn += time.Duration(sl.blockedIn.Load())
			out.BlockedOut += time.Duration(sl.blockedOut.Load())
		}
		st.mu.Unlock()
		if i > 0 {
			out.Queue = max(0, s.Stages[i-1].ChunksOut-out.ChunksIn)
		}
		s.Stages = append(s.Stages, out)
	}
	s.Rows, s.Delivered = s.Stages[0].ItemsOut, s.Stages[len(s.Stages)-1].ItemsIn
	if sec := s.Elapsed.Seconds(); sec > 0 {
		s.Rate = float64(s.Rows) / sec
	}
	if s.TotalRows > s.Rows && s.Rate > 0 {
		s.Remaining = time.Duration(float64(s.TotalRows-s.Rows) / s.Rate * float64(time.Second))
	}
	return s
}

// flushAll publishes every meter's counts, once the run's goroutines
// have returned.
func (rs *runStats) flushAll() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, m := range rs.meters {
		m.flush()
	}
}

// moved returns a number that grows whenever a chunk moves anywhere.
func (rs *runStats) moved() int64 {
	var n int64
	for _, st := range rs.stages {
		st.mu.Lock()
		for _, sl := range st.slots {
			n += sl.chunksIn.Load() + sl.chunksOut.Load()
		}
		st.mu.Unlock()
	}
	return n
}

// flushEvery is the number of chunks a meter takes in (or, for a
// source, pushes) before it publishes its counts; it also publishes before its goroutine blocks on input, and
// the run publishes every meter when it ends. A snapshot therefore lags
// by at most that many chunks per goroutine.
const flushEvery = 8

// meter counts one goroutine's work in one stage: the chunks it takes in
// (enter, exit), those it pushes on (push), and the time it waits for
// input (recvMetered). It keeps its counts in plain fields and publishes
// them to its slot every flushEvery chunks, so that a chunk costs a few
// atomic operations per stage: the two that say whether the goroutine is
// inside the stage, for the stall report, and little else. Time comes
// from the run's coarse clock (see runStats.clock).
type meter struct {
	rs   *runStats
	s    *slot
	next *meter // the next stage's meter in the same goroutine, if any

	itemsIn, itemsOut, chunksIn, chunksOut int64
	busy, blockedIn, blockedOut            int64
	pending                                int   // chunks counted since the last flush
	batch, t0, down                        int64 // the chunk being worked on
	// last is the duration of the latest enter…exit, which the stage
	// before it in the same goroutine subtracts from its own busy time.
	last int64
}

// newMeter returns a meter for slot s of an observed run whose stage
// pushes into next.
func newMeter(rs *runStats, s *slot, next any) *meter {
	m := &meter{rs: rs, s: s, next: meterOf(next)}
	if m.next != nil {
		s.next = m.next.s
	}
	rs.mu.Lock()
	rs.meters = append(rs.meters, m)
	rs.mu.Unlock()
	return m
}

// metered is a downstream that counts its own work.
type metered interface{ meter() *meter }

// meterOf returns d's meter, or nil.
func meterOf(d any) *meter {
	if m, ok := d.(metered); ok {
		return m.meter()
	}
	return nil
}

// enter starts the stage's work on a chunk of n items.
func (m *meter) enter(batch int64, n int) {
	m.chunksIn++
	m.itemsIn += int64(n)
	m.begin(batch)
}

// begin starts work that takes no chunk in: a source's Read, a Flush.
func (m *meter) begin(batch int64) {
	m.s.state.Store(batch + 1)
	m.batch, m.down, m.last = batch, 0, 0
	m.t0 = m.rs.clock.Load()
}

// exit ends the work enter or begin started.
func (m *meter) exit() {
	m.s.state.Store(0)
	d := m.rs.clock.Load() - m.t0
	m.busy += d - m.down
	m.last = d
	m.count()
}

// count counts a chunk in or out, and publishes every flushEvery.
func (m *meter) count() {
	if m.pending++; m.pending >= flushEvery {
		m.flush()
	}
}

// push counts a chunk of n items that f pushes downstream.
func (m *meter) push(n int, f func() error) error {
	m.chunksOut++
	m.itemsOut += int64(n)
	if m.chunksIn == 0 {
		m.count() // a source: no chunks in
	}
	if m.next != nil {
		err := f()
		m.down += m.next.last
		return err
	}
	m.s.state.Store(blockedOut)
	t := m.rs.clock.Load()
	err := f()
	d := m.rs.clock.Load() - t
	m.s.state.Store(m.batch + 1)
	m.down += d
	m.blockedOut += d
	return err
}

// flush publishes the meter's counts.
func (m *meter) flush() {
	s := m.s
	for _, c := range [...]struct {
		to *atomic.Int64
		v  *int64
	}{{&s.itemsIn, &m.itemsIn}, {&s.itemsOut, &m.itemsOut}, {&s.chunksIn, &m.chunksIn},
		{&s.chunksOut, &m.chunksOut}, {&s.busy, &m.busy}, {&s.blockedIn, &m.blockedIn}, {&s.blockedOut, &m.blockedOut}} {
		if *c.v != 0 {
			c.to.Add(*c.v)
			*c.v = 0
		}
	}
	m.pending = 0
}

// recvMetered receives from ch like recv. If it has to wait, it first
// publishes the counts of m's goroutine (m and the meters after it) and
// counts the wait as m's time blocked on input. m may be nil.
func recvMetered[V any](ctx context.Context, ch <-chan V, m *meter) (V, bool, error) {
	if m == nil {
		return recv(ctx, ch)
	}
	select {
	case v, ok := <-ch:
		return v, ok, nil
	default:
	}
	for n := m; n != nil; n = n.next {
		n.flush()
	}
	t := m.rs.clock.Load()
	v, ok, err := recv(ctx, ch)
	m.blockedIn += m.rs.clock.Load() - t
	return v, ok, err
}
