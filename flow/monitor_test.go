package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

func TestMonitorCounts(t *testing.T) {
	for _, w := range []int{1, 2, 3} {
		testutil.CheckGoroutines(t)
		m := &flow.Monitor{}
		var n int64
		err := flow.From(sources.Slice(ints(10000), sources.PartitionItems(100), sources.ChunkSize(50))).
			Via(operators.Filter(func(v int64) bool { return v%2 == 0 })).Parallel(w).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).
			To(sinks.Count[int64](&n)).Run(flow.WithMonitor(context.Background(), m))
		if err != nil {
			t.Fatal(err)
		}
		s := m.Snapshot()
		if !s.Ended || len(s.Stages) != 4 {
			t.Fatalf("w=%d: snapshot %+v", w, s)
		}
		type counts struct{ in, out, cin, cout int64 }
		want := []counts{{0, 10000, 0, 200}, {10000, 5000, 200, 200}, {5000, 5000, 200, 200}, {5000, 0, 200, 0}}
		names := []string{"slice", "filter", "map", "count"}
		for i, st := range s.Stages {
			got := counts{st.ItemsIn, st.ItemsOut, st.ChunksIn, st.ChunksOut}
			if got != want[i] || st.Position != i || st.Queue != 0 || !strings.HasPrefix(st.Name, names[i]) {
				t.Errorf("w=%d: stage %d: %+v, want %s with %+v and an empty queue", w, i, st, names[i], want[i])
			}
		}
		if s.Stages[1].Workers != w || s.Stages[2].Workers != 1 {
			t.Errorf("w=%d: workers %d and %d", w, s.Stages[1].Workers, s.Stages[2].Workers)
		}
	}
}

// A snapshot taken inside the loop sees the counts so far, each
// goroutine's at most 8 chunks behind: the loop has received about what
// it has read, the source has produced at least that, and the queue in
// front of the loop is what lies between.
func TestMonitorSnapshotWhileRunning(t *testing.T) {
	testutil.CheckGoroutines(t)
	m := &flow.Monitor{}
	ctx := flow.WithMonitor(context.Background(), m)
	p := flow.From(sources.Slice(ints(50000), sources.PartitionItems(1000), sources.ChunkSize(100))).
		Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(2)
	read := int64(0)
	checks := 0
	for _, err := range flow.Values[int64](ctx, p) {
		if err != nil {
			t.Fatal(err)
		}
		read++
		if read%7919 != 0 {
			continue
		}
		s := m.Snapshot()
		checks++
		loop := s.Stages[len(s.Stages)-1]
		if s.Ended || loop.Name != "loop" || loop.ItemsIn < read-800 || loop.ItemsIn > read+100 {
			t.Fatalf("after %d items: loop %+v", read, loop)
		}
		if s.Stages[0].ItemsOut < loop.ItemsIn-800 || s.Stages[1].ItemsOut < loop.ItemsIn-800 {
			t.Fatalf("after %d items: source %d, map %d items out, loop %d in", read,
				s.Stages[0].ItemsOut, s.Stages[1].ItemsOut, loop.ItemsIn)
		}
		if q := s.Stages[1].ChunksOut - loop.ChunksIn; loop.Queue != max(q, 0) {
			t.Fatalf("queue %d, want %d", loop.Queue, q)
		}
	}
	if checks != 6 || m.Snapshot().Stages[2].ItemsIn != 50000 {
		t.Fatalf("%d checks, final %+v", checks, m.Snapshot())
	}
}

// stallOp is a stage that blocks on a channel when it meets one value.
type stallOp struct {
	at      int64
	reached chan struct{}
	release chan struct{}
}

func (o *stallOp) Info() flow.Info { return flow.Info{Name: "stall-here"} }

func (o *stallOp) NewProcessor(flow.Env) flow.Processor[int64, int64] { return o }

func (o *stallOp) Process(ctx context.Context, c flow.Chunk[int64], out flow.Emitter[int64]) error {
	for _, v := range c.Values {
		if v == o.at {
			close(o.reached)
			select {
			case <-o.release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	return out.Push(ctx, c)
}

func (o *stallOp) Flush(context.Context, flow.Emitter[int64]) error { return nil }

// A stage stalled on purpose is named by the stall report, with the
// partition it holds; time is synctest's.
func TestStallReportNamesTheStage(t *testing.T) {
	for _, w := range []int{1, 2, 4} {
		synctest.Test(t, func(t *testing.T) {
			op := &stallOp{at: 4321, reached: make(chan struct{}), release: make(chan struct{})}
			reports := make(chan flow.StallReport, 1)
			var logs bytes.Buffer
			m := &flow.Monitor{StallAfter: 5 * time.Second, OnStall: func(r flow.StallReport) { reports <- r },
				Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
			ctx := flow.WithMonitor(t.Context(), m)
			p := flow.From(sources.Slice(ints(20000), sources.PartitionItems(100))).
				Via(operators.Map(func(v int64) (int64, error) { return v + 1, nil })).Parallel(w).
				Via(flow.NewStage[int64, int64](op)).Parallel(w).
				Via(operators.Filter(func(v int64) bool { return true }))
			var n int64
			done := make(chan error)
			start := time.Now()
			go func() { done <- p.To(sinks.Count[int64](&n)).Run(ctx) }()
			<-op.reached
			r := <-reports
			if r.Stage != "stall-here" || r.Position != 2 || r.Part != 43 {
				t.Errorf("w=%d: report %v (stage %q, position %d, partition %d), want stall-here, 2, 43", w, r, r.Stage, r.Position, r.Part)
			}
			if r.Idle < 5*time.Second || time.Since(start) > 7*time.Second {
				t.Errorf("w=%d: idle %v, reported after %v", w, r.Idle, time.Since(start))
			}
			if !strings.Contains(r.String(), `"stall-here"`) || !strings.Contains(r.String(), "partition 43") {
				t.Errorf("report text %q", r.String())
			}
			close(op.release)
			if err := <-done; err != nil || n != 20000 {
				t.Fatalf("w=%d: Run = %v, %d items", w, err, n)
			}
			var warned bool
			for line := range strings.Lines(logs.String()) {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatal(err)
				}
				if rec["level"] == "WARN" && rec["msg"] == "flow: stall" && rec["stage"] == "stall-here" {
					warned = true
				}
			}
			if !warned {
				t.Errorf("w=%d: no stall logged:\n%s", w, logs.String())
			}
		})
	}
}

// bytesSource is a generator of parts partitions of size values.
type bytesSource struct{ parts, size int64 }

func (s bytesSource) Info() flow.Info { return flow.Info{Name: "bytes"} }

func (s bytesSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	return func(yield func(flow.Partition[int64], error) bool) {
		for b := range s.parts {
			read := func(ctx context.Context, out flow.Emitter[int64]) error {
				vals := make([]int64, s.size)
				for i := range vals {
					vals[i] = b*s.size + int64(i)
				}
				return out.Push(ctx, flow.Chunk[int64]{Part: b, Values: vals,
					IDs: flow.OrdinalIDs(rowid.ID{}, uint64(b*s.size), len(vals)), End: true})
			}
			if !yield(flow.Partition[int64]{Part: b, Read: read}, nil) {
				return
			}
		}
	}
}

// Progress reports come every interval on the run's clock, count rows and
// estimate the time left from the rate; the last has Ended.
func TestProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var reports []flow.Stats
		m := &flow.Monitor{TotalRows: 10000, ProgressEvery: 100 * time.Millisecond,
			OnProgress: func(s flow.Stats) { reports = append(reports, s) }}
		ctx := flow.WithMonitor(t.Context(), m)
		p := flow.From(bytesSource{parts: 100, size: 100})
		for _, err := range flow.Values[int64](ctx, p) {
			if err != nil {
				t.Fatal(err)
			}
			<-time.After(100 * time.Microsecond) // the loop's work: 1 s of fake time in all
		}
		if len(reports) < 8 {
			t.Fatalf("%d reports", len(reports))
		}
		last := reports[len(reports)-1]
		if !last.Ended || last.Rows != 10000 || last.Delivered != 10000 ||
			last.TotalRows != 10000 || last.Remaining != 0 || last.Elapsed < time.Second {
			t.Fatalf("last report %+v", last)
		}
		for i, r := range reports[:len(reports)-1] {
			if r.Ended || r.Rows < r.Delivered || r.TotalRows != 10000 {
				t.Fatalf("report %d: %+v", i, r)
			}
			if i > 0 && (r.Rows < reports[i-1].Rows || r.Elapsed <= reports[i-1].Elapsed) {
				t.Fatalf("report %d goes back: %+v after %+v", i, r, reports[i-1])
			}
			if rate := float64(r.Rows) / r.Elapsed.Seconds(); r.Rate != rate {
				t.Fatalf("report %d: rate %v, want %v", i, r.Rate, rate)
			}
			want := time.Duration(float64(10000-r.Rows) / r.Rate * float64(time.Second))
			if r.Rows < 10000 && r.Remaining != want {
				t.Fatalf("report %d: remaining %v, want %v", i, r.Remaining, want)
			}
		}
	})
}

func TestMonitorLogsTheRun(t *testing.T) {
	var logs bytes.Buffer
	m := &flow.Monitor{Logger: slog.New(slog.NewJSONHandler(&logs, nil))}
	err := flow.From(sources.Slice(ints(1000))).
		Via(operators.Map(func(v int64) (int64, error) {
			if v == 999 {
				return 0, errBad
			}
			return v, nil
		})).To(sinks.Count[int64](new(int64))).Run(flow.WithMonitor(context.Background(), m))
	if !errors.Is(err, errBad) {
		t.Fatal(err)
	}
	var rec struct {
		Msg   string
		Error string
		Stats map[string]any
	}
	if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, logs.String())
	}
	mapStats, _ := rec.Stats["map"].(map[string]any)
	if rec.Msg != "flow: run ended" || !strings.Contains(rec.Error, "bad value") || mapStats == nil ||
		mapStats["items_in"] != float64(1000) || mapStats["position"] != float64(1) {
		t.Fatalf("log %s", logs.String())
	}
}

// The zero Monitor counts nothing until a run, and settings out of range
// turn their reports off or fall back to their defaults instead of failing.
func TestMonitorZeroAndDefaults(t *testing.T) {
	if s := (&flow.Monitor{}).Snapshot(); len(s.Stages) != 0 {
		t.Errorf("a new monitor has stats %+v", s)
	}
	synctest.Test(t, func(t *testing.T) {
		var reports []flow.Stats
		m := &flow.Monitor{ProgressEvery: -1, StallAfter: -1, TotalRows: -5,
			OnProgress: func(s flow.Stats) { reports = append(reports, s) },
			OnStall:    func(r flow.StallReport) { t.Errorf("a stall reported with StallAfter -1: %v", r) }}
		ctx := flow.WithMonitor(t.Context(), m)
		for _, err := range flow.Values[int64](ctx, flow.From(bytesSource{parts: 3, size: 10})) {
			if err != nil {
				t.Fatal(err)
			}
			<-time.After(time.Second) // 30 s of fake time: a report a second
		}
		if n := len(reports); n < 25 || n > 32 {
			t.Fatalf("%d reports in 30 s, want one a second", n)
		}
		if last := reports[len(reports)-1]; !last.Ended || last.TotalRows != 0 || last.Rows != 30 {
			t.Fatalf("last report %+v", last)
		}
	})
}

// Busy and blocked times, on synctest's clock: a stage on two workers
// that takes a second per partition is busy for a second per partition,
// and the sink waits for it.
func TestMonitorTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &flow.Monitor{}
		var n int64
		err := flow.From(sources.Slice(ints(800), sources.PartitionItems(100))).
			Via(operators.Map(func(v int64) (int64, error) {
				if v%100 == 0 {
					<-time.After(time.Second)
				}
				return v, nil
			})).Parallel(2).
			To(sinks.Count[int64](&n)).Run(flow.WithMonitor(t.Context(), m))
		if err != nil || n != 800 {
			t.Fatal(n, err)
		}
		s := m.Snapshot()
		near := func(d, want time.Duration) bool {
			return d >= want-10*time.Millisecond && d <= want+10*time.Millisecond
		}
		if mp := s.Stages[1]; !near(mp.Busy, 8*time.Second) || !near(s.Elapsed, 4*time.Second) {
			t.Errorf("map busy %v over %v, want 8s over 4s", mp.Busy, s.Elapsed)
		}
		if sink := s.Stages[2]; !near(sink.BlockedIn+sink.Busy, 4*time.Second) || sink.ItemsIn != 800 {
			t.Errorf("sink busy %v, blocked %v, want 4s in all", sink.Busy, sink.BlockedIn)
		}
	})
}

// Without TotalRows, a source that counts its rows gives the total, times
// the epochs.
func TestProgressTotalFromTheSource(t *testing.T) {
	testutil.CheckGoroutines(t)
	var last flow.Stats
	m := &flow.Monitor{ProgressEvery: time.Hour, OnProgress: func(s flow.Stats) { last = s }}
	var n int64
	err := flow.From(sources.Slice(ints(1000), sources.PartitionItems(64))).Epochs(3).
		To(sinks.Count[int64](&n)).Run(flow.WithMonitor(context.Background(), m))
	if err != nil || n != 3000 {
		t.Fatal(n, err)
	}
	if !last.Ended || last.TotalRows != 3000 || last.Rows != 3000 || last.Remaining != 0 {
		t.Fatalf("last report %+v", last)
	}
	// A generator without end has no total.
	m = &flow.Monitor{ProgressEvery: time.Hour, OnProgress: func(s flow.Stats) { last = s }}
	p := flow.From(sources.Generate(-1, func(i int64) (int64, error) { return i, nil })).
		Via(operators.Take[int64](500))
	if err := p.To(sinks.Count[int64](&n)).Run(flow.WithMonitor(context.Background(), m)); err != nil {
		t.Fatal(err)
	}
	if !last.Ended || last.TotalRows != 0 || last.Delivered != 500 {
		t.Fatalf("last report %+v", last)
	}
}

// A Parquet dataset counts its rows from the footers, which it opens
// under a run's context: the monitor's count must give it one. The sink
// holds the first row until a report gives the total (the bubble's clock
// moves only once the count has ended), or a report ten minutes on.
func TestProgressTotalFromParquet(t *testing.T) {
	type row struct {
		ID int64 `parquet:"id"`
	}
	dir := t.TempDir()
	for f, n := range []int{700, 300, 1} {
		rows := make([]row, n)
		for i := range rows {
			rows[i].ID = int64(i)
		}
		testutil.WriteParquet(t, filepath.Join(dir, fmt.Sprintf("part-%d.parquet", f)), rows, 128)
	}
	testutil.Synctest(t, func(t *testing.T) {
		var last flow.Stats
		known := make(chan struct{})
		m := &flow.Monitor{ProgressEvery: time.Minute, OnProgress: func(p flow.Stats) {
			if last = p; p.TotalRows > 0 && !p.Ended {
				select {
				case <-known:
				default:
					close(known)
				}
			}
		}}
		var n int64
		err := flow.From(parquet.Read[row](dir)).Epochs(2).
			To(sinks.ForEach(func(flow.Item[row]) error {
				if n++; n == 1 {
					select {
					case <-known:
					case <-time.After(10 * time.Minute):
					}
				}
				return nil
			})).Run(flow.WithMonitor(t.Context(), m))
		if err != nil || n != 2002 {
			t.Fatal(n, err)
		}
		if !last.Ended || last.TotalRows != 2002 || last.Rows != 2002 || last.Remaining != 0 {
			t.Fatalf("last report %+v", last)
		}
	})
}

// A loop body that does not come back is what everything waits on.
func TestStallReportNamesTheLoop(t *testing.T) {
	for _, w := range []int{1, 2} {
		synctest.Test(t, func(t *testing.T) {
			reports := make(chan flow.StallReport, 1)
			m := &flow.Monitor{StallAfter: time.Second, OnStall: func(r flow.StallReport) { reports <- r }}
			p := flow.From(sources.Slice(ints(5000), sources.PartitionItems(100))).
				Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(w)
			k := 0
			for _, err := range flow.Values[int64](flow.WithMonitor(t.Context(), m), p) {
				if err != nil {
					t.Fatal(err)
				}
				if k++; k == 777 {
					r := <-reports // the body waits for the report of its own stall
					if r.Stage != "loop" || r.Position != 2 || r.Part != 7 {
						t.Errorf("w=%d: report %v", w, r)
					}
				}
			}
			if k != 5000 {
				t.Fatalf("w=%d: %d values", w, k)
			}
		})
	}
}
