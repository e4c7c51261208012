package flow

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Monitor observes the runs started with a context from [WithMonitor]:
// per-stage counters that [Monitor.Snapshot] reads while the run goes on,
// a stall report when nothing has moved for a while, a progress callback,
// and log lines. Counting costs about two atomic stores per chunk and
// stage, not per item, and a goroutine that ticks every millisecond while
// the run goes on (internal/bench/pipeline measures the cost; see BENCHMARKS.md).
//
// The zero Monitor counts and reports nothing but what Snapshot reads; its
// fields turn the rest on. A run reads them when it starts: set them
// before the first run, not while one goes on. A Monitor watches one run
// at a time: Snapshot reads the latest run started with it. It is safe
// for concurrent use.
type Monitor struct {
	// Logger, if set, gets the end of each run at Info with its [Stats],
	// stall reports at Warn and, with OnProgress, each progress report at
	// Debug.
	Logger *slog.Logger
	// OnProgress, if set, is called every ProgressEvery (a second if it
	// is not positive) while a run goes on, and once more when it ends
	// (with Stats.Ended set), from a goroutine of the run's own. It must
	// return promptly.
	OnProgress    func(Stats)
	ProgressEvery time.Duration
	// StallAfter, if positive, makes the monitor report a stall when no
	// chunk has moved anywhere in the run for that long: OnStall, if set,
	// receives a [StallReport] naming the stage, and the partition, that
	// everything waits on, and Logger logs it. One report is made per
	// stall; a stall that ends and begins again is reported again.
	StallAfter time.Duration
	OnStall    func(StallReport)
	// TotalRows, if positive, is the number of rows the source will
	// produce, for Stats.Remaining. Otherwise a monitor with OnProgress
	// asks a source that is a [RowCounter] (a slice, a Parquet dataset
	// without a row filter) for its counts, times the number of epochs,
	// while the run starts.
	TotalRows int64

	cur atomic.Pointer[runStats]
}

// monitorConfig is what a run reads of its Monitor when it starts.
type monitorConfig struct {
	stallAfter    time.Duration
	onStall       func(StallReport)
	progressEvery time.Duration
	onProgress    func(Stats)
	logger        *slog.Logger
	totalRows     int64
}

// config returns m's settings, with their defaults filled in.
func (m *Monitor) config() monitorConfig {
	c := monitorConfig{onStall: m.OnStall, onProgress: m.OnProgress, logger: m.Logger}
	if m.StallAfter > 0 {
		c.stallAfter = m.StallAfter
	}
	if c.onProgress != nil {
		c.progressEvery = m.ProgressEvery
		if c.progressEvery <= 0 {
			c.progressEvery = time.Second
		}
	}
	c.totalRows = max(m.TotalRows, 0)
	return c
}

type monitorKey struct{}

// WithMonitor returns a context whose runs ([Pipeline.Run], [Items],
// [Values], [Chunks], [Cursors]) m observes. Without a monitor a run
// counts nothing.
func WithMonitor(ctx context.Context, m *Monitor) context.Context {
	return context.WithValue(ctx, monitorKey{}, m)
}

// Snapshot returns the counters of the latest run m observes, as they are
// now, or a zero Stats if m has observed none.
func (m *Monitor) Snapshot() Stats {
	if rs := m.cur.Load(); rs != nil {
		return rs.snapshot()
	}
	return Stats{}
}

// StallReport says what a stalled run waits on.
type StallReport struct {
	// Stage and Position name the stage everything waits on: the one
	// furthest downstream that is inside its own code (a Process, a
	// source's Read, a sink's Consume, a loop's body) and has not come
	// out. Stage is empty if every goroutine waits on another.
	Stage    string
	Position int
	// Part is the partition that stage is working on.
	Part int64
	// Idle is how long nothing has moved.
	Idle  time.Duration
	Stats Stats
}

func (r StallReport) String() string {
	if r.Stage == "" {
		return fmt.Sprintf("flow: nothing moved for %v; no stage is working", r.Idle)
	}
	return fmt.Sprintf("flow: nothing moved for %v; waiting on stage %q (position %d), partition %d",
		r.Idle, r.Stage, r.Position, r.Part)
}

// stall looks for the stage everything waits on: of the goroutines
// inside a stage's own code (not in a stage after it in the same
// goroutine, not waiting to hand output on), the one furthest downstream,
// and among those the one on the lowest batch: in an ordered group that
// is the partition the merge waits for.
func (rs *runStats) stall(idle time.Duration) StallReport {
	rep := StallReport{Idle: idle, Stats: rs.snapshot()}
	for i := len(rs.stages) - 1; i >= 0; i-- {
		st := rs.stages[i]
		found := false
		st.mu.Lock()
		for _, sl := range st.slots {
			b := sl.state.Load() - 1
			if b < 0 || (sl.next != nil && sl.next.state.Load() != 0) {
				continue
			}
			if !found || b < rep.Part {
				rep.Part, found = b, true
			}
		}
		st.mu.Unlock()
		if found {
			rep.Stage, rep.Position = st.name, st.pos
			return rep
		}
	}
	return rep
}

// watch is a run's watchdog: it reports progress and stalls until done
// is closed.
type watch struct {
	rs     *runStats
	done   chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startWatch starts the watchdog of an observed run: it keeps the run's
// coarse clock, and reports progress and stalls if the monitor asks. If
// progress is asked for and no total given, it first asks total for one,
// under a context that ends with the watch.
func startWatch(ctx context.Context, rs *runStats, total func(context.Context) (int64, bool)) *watch {
	ctx, cancel := context.WithCancel(ctx)
	w := &watch{rs: rs, done: make(chan struct{}), cancel: cancel}
	c := rs.cfg
	if c.onProgress != nil && c.totalRows == 0 && total != nil {
		w.wg.Go(func() {
			if n, ok := total(ctx); ok {
				rs.total.CompareAndSwap(0, n)
			}
		})
	}
	w.wg.Go(w.loop)
	return w
}

// totalOf returns a function that counts the rows a run of p will read,
// if its source can count them without reading (see [RowCounter]) and
// the run has an end.
func totalOf(p *Pipeline) func(context.Context) (int64, bool) {
	rc := p.src.counter()
	if rc == nil || p.epochCount() == Forever {
		return nil
	}
	return func(ctx context.Context) (int64, bool) {
		// The count is a run of its own: a source that opens files to
		// count (a Parquet dataset reads footers) closes them with AtEnd,
		// which needs a run, and the pipeline's run must not wait for it.
		r, runCtx := newRunner(ctx)
		counts, err := rc.RowCounts(runCtx, p.env())
		r.wait(ctx)
		if err != nil {
			return 0, false
		}
		var n int64
		for _, c := range counts {
			n += c
		}
		return n * p.epochCount(), true
	}
}

func (w *watch) loop() {
	c := w.rs.cfg
	t := time.NewTicker(clockTick)
	defer t.Stop()
	check := c.stallAfter / 4
	if c.stallAfter == 0 || (c.onProgress != nil && c.progressEvery < check) {
		check = c.progressEvery
	}
	start := w.rs.start
	last, lastMove := w.rs.moved(), start
	nextCheck, nextProgress := start.Add(check), start.Add(c.progressEvery)
	reported := false
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
		}
		now := time.Now()
		w.rs.clock.Store(int64(now.Sub(start)) + 1)
		if check == 0 || now.Before(nextCheck) {
			continue
		}
		nextCheck = now.Add(check)
		if moved := w.rs.moved(); moved != last {
			last, lastMove, reported = moved, now, false
		} else if c.stallAfter > 0 && !reported && now.Sub(lastMove) >= c.stallAfter {
			reported = true
			w.rs.reportStall(w.rs.stall(now.Sub(lastMove)))
		}
		if c.onProgress != nil && !now.Before(nextProgress) {
			nextProgress = now.Add(c.progressEvery)
			w.rs.reportProgress(w.rs.snapshot())
		}
	}
}

// stop stops the watchdog and waits for it.
func (w *watch) stop() {
	if w != nil {
		close(w.done)
		w.cancel()
		w.wg.Wait()
	}
}

func (rs *runStats) reportStall(r StallReport) {
	if l := rs.cfg.logger; l != nil {
		l.Warn("flow: stall", "stage", r.Stage, "position", r.Position, "batch", r.Part,
			"idle", r.Idle, "stats", r.Stats)
	}
	if rs.cfg.onStall != nil {
		rs.cfg.onStall(r)
	}
}

func (rs *runStats) reportProgress(s Stats) {
	if l := rs.cfg.logger; l != nil {
		l.Debug("flow: progress", "rows", s.Rows, "delivered", s.Delivered,
			"rate", s.Rate, "total_rows", s.TotalRows, "remaining", s.Remaining, "done", s.Ended)
	}
	rs.cfg.onProgress(s)
}

// observe makes r's run observed if ctx carries a monitor: it returns the
// run's stats, which the run's Env carries to its stages, or nil. sink
// names the sink, or "loop" for a run read by a loop.
func (r *runner) observe(ctx context.Context, p *Pipeline, sink string) *runStats {
	m, ok := ctx.Value(monitorKey{}).(*Monitor)
	if !ok || m == nil {
		return nil
	}
	rs := newRunStats(m, p, sink)
	m.cur.Store(rs)
	r.stats = rs
	r.watch = startWatch(ctx, rs, totalOf(p))
	return rs
}

// endObserved ends the observation of r's run, after its goroutines have
// returned.
func (r *runner) endObserved(err error) {
	rs := r.stats
	if rs == nil {
		return
	}
	r.watch.stop()
	rs.flushAll()
	rs.ended.Store(int64(time.Since(rs.start)) + 1)
	if rs.cfg.onProgress != nil {
		rs.reportProgress(rs.snapshot())
	}
	if l := rs.cfg.logger; l != nil {
		if err != nil {
			l.Info("flow: run ended", "error", err, "stats", rs.snapshot())
		} else {
			l.Info("flow: run ended", "stats", rs.snapshot())
		}
	}
}
