package shards_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// ctRow is the row of the continuation tests: columns every shard sink
// writes.
type ctRow struct {
	ID    int64   `parquet:"id" json:"id" csv:"id"`
	Name  string  `parquet:"name" json:"name" csv:"name"`
	Score float64 `parquet:"score" json:"score" csv:"score"`
}

// ctCase is one configuration of a continued run: the format, the
// pipeline's shape and where its first runs fail.
type ctCase struct {
	format   string // "parquet", "jsonl" or "csv"
	rows     int
	chunk    int // the source's ChunkSize
	part     int // the source's PartitionItems
	par      int // the Parallel of the Map stages
	lastPar  int // the Parallel of the second and last runs' Map stages; 0: par
	stateful string
	window   int   // Shuffle's window or Batch's size
	perFile  int64 // RowsPerFile, or with byBytes BytesPerFile (Parquet)
	byBytes  bool
	group    int    // Parquet's RowGroupRows
	rid      bool   // RowIDColumn("rid")
	comp     string // Compression; "": the default
	before   bool
	cancel   bool
	fails    []int64 // the ID of the row at which each failing run fails
}

func (c ctCase) String() string {
	return fmt.Sprintf("%s/rows=%d/chunk=%d/part=%d/par=%d,%d/%s(%d)/perFile=%d,bytes=%t,group=%d/rid=%t,comp=%q/before=%t/cancel=%t/fails=%v",
		c.format, c.rows, c.chunk, c.part, c.par, c.lastPar, c.stateful, c.window, c.perFile, c.byBytes, c.group, c.rid, c.comp, c.before, c.cancel, c.fails)
}

// ctRows returns n rows whose contents follow from their index.
func ctRows(n int) []ctRow {
	rows := make([]ctRow, n)
	for i := range rows {
		rows[i] = ctRow{ID: int64(i), Name: fmt.Sprintf("name %d,%q", i*7919%1000, strings.Repeat("x", i%13)), Score: float64(i*i%977) / 3}
	}
	return rows
}

// pipeline returns the case's pipeline: the rows through a Map, a
// stateful stage (a Shuffle, or a Batch whose batches become one row
// each: the first member's ID divided by the size, the names joined, the
// scores summed) and another Map. The first Map if before, the second
// otherwise, calls fail with each row's ID; an error it returns fails
// the row.
func (c ctCase) pipeline(fail func(id int64) error) *flow.Pipeline {
	at := func(stage bool) flow.Stage {
		return operators.Map(func(r ctRow) (ctRow, error) {
			if stage && fail != nil {
				if err := fail(r.ID); err != nil {
					return r, err
				}
			}
			return r, nil
		})
	}
	p := flow.From(sources.Slice(ctRows(c.rows), sources.ChunkSize(c.chunk), sources.PartitionItems(c.part))).
		Via(at(c.before)).Parallel(c.par)
	switch c.stateful {
	case "shuffle":
		p = p.Via(operators.Shuffle[ctRow](c.window, operators.PartitionItems(c.part)))
	case "batch":
		p = p.Via(operators.Batch[ctRow](c.window, operators.PartitionItems(max(1, c.part/c.window)))).
			Via(operators.Map(func(b operators.Rows[ctRow]) (ctRow, error) {
				out := ctRow{ID: b.Values[0].ID / int64(c.window)}
				for _, r := range b.Values {
					out.Name += r.Name + ";"
					out.Score += r.Score
				}
				return out, nil
			})).Parallel(c.par)
	}
	return p.Via(at(!c.before)).Parallel(c.par).WithSeed(7)
}

// sink returns the case's sink into dir, with Continue if cont.
func (c ctCase) sink(dir string, cont bool) flow.Sink {
	opts := []shards.Option{shards.RowsPerFile(c.perFile)}
	if c.byBytes {
		opts = []shards.Option{shards.BytesPerFile(c.perFile)}
	}
	if cont {
		opts = append(opts, shards.Continue())
	}
	if c.rid {
		opts = append(opts, shards.RowIDColumn("rid"))
	}
	if c.comp != "" {
		opts = append(opts, shards.Compression(c.comp))
	}
	switch c.format {
	case "jsonl":
		return shards.JSONL[ctRow](dir, opts...)
	case "csv":
		return shards.CSV[ctRow](dir, opts...)
	}
	popts := []shards.ParquetOption{shards.RowGroupRows(c.group)}
	for _, o := range opts {
		popts = append(popts, o)
	}
	return shards.Parquet[ctRow](dir, popts...)
}

// progressFiles returns the final and temporary names of the files that
// the progress record of rank 0 in dir lists, nil if there is none.
func progressFiles(t *testing.T, dir string) (paths, temps []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".progress-00000.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Files []struct {
			Path string `json:"path"`
			Temp string `json:"temp"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, f := range rec.Files {
		paths, temps = append(paths, f.Path), append(temps, f.Temp)
	}
	return paths, temps
}

// checkFailed checks what a failed run with Continue left in dir: no file
// under a final name, no manifest; only the progress record, the files
// it lists, each a prefix of the uninterrupted run's files in name and
// bytes, and the rank's lock.
func checkFailed(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	paths, temps := progressFiles(t, dir)
	for i, p := range paths {
		if !strings.HasPrefix(p, fmt.Sprintf("part-00000-%05d.", i)) {
			t.Errorf("the record lists %s as file %d", p, i+1)
		}
	}
	for name, b := range readTree(t, dir) {
		switch i := slices.Index(temps, name); {
		case name == ".progress-00000.json" || name == ".rank-00000.lock":
		case i >= 0:
			if w, ok := want[paths[i]]; !ok || !bytes.Equal(b, w) {
				t.Errorf("the record keeps %s as %s, which is not the uninterrupted run's file", name, paths[i])
			}
		default:
			t.Errorf("the failed run left %s", name)
		}
	}
}

// runContinued runs the case: an uninterrupted run without Continue, one
// with Continue in another directory, then runs with Continue that fail
// at each of c.fails (an error of the Map, or the run's context
// cancelled there), each continuing the last, and a last run that
// completes. The output of every completed run must be byte for byte the
// first's; the runs continued write only the files after those kept.
// With fresh, the last run is without Continue and starts over.
func runContinued(t *testing.T, c ctCase, fresh bool) {
	ctx := context.Background()
	ref := t.TempDir()
	if err := c.pipeline(nil).To(c.sink(ref, false)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := readTree(t, ref)
	m, err := shards.VerifyManifest(ref, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != int64(len(ctRows(c.rows))) && c.stateful != "batch" {
		t.Fatalf("the uninterrupted run wrote %d rows, want %d", m.Rows, c.rows)
	}
	again := t.TempDir()
	if err := c.pipeline(nil).To(c.sink(again, true)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, again); !maps.EqualFunc(got, want, bytes.Equal) {
		t.Fatalf("with Continue, an uninterrupted run wrote %q, without %q", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}

	dir := t.TempDir()
	boom := errors.New("boom")
	for i, k := range c.fails {
		run := c
		if i%2 == 1 && c.lastPar != 0 {
			run.par = c.lastPar
		}
		rctx, cancel := context.WithCancel(ctx)
		err := run.pipeline(func(id int64) error {
			if id != k {
				return nil
			}
			if c.cancel {
				cancel()
				return nil
			}
			return fmt.Errorf("row %d: %w", id, boom)
		}).To(c.sink(dir, true)).Run(rctx)
		cancel()
		switch {
		case err == nil:
			// The stream ended before a stage saw the cancellation, or
			// the run continued after row k (in the files kept, or
			// before them in a shuffled order): it completed.
			if got := readTree(t, dir); !maps.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("the run failing at %d completed, with output %q", k, slices.Sorted(maps.Keys(got)))
			}
			return
		case c.cancel && !errors.Is(err, context.Canceled), !c.cancel && !errors.Is(err, boom):
			t.Fatalf("the run failing at %d: %v", k, err)
		}
		checkFailed(t, dir, want)
	}
	kept, _ := progressFiles(t, dir)
	var created []string
	restore := shards.SetFSStep(func(s string) {
		if name, ok := strings.CutPrefix(s, "created "); ok && strings.HasPrefix(name, "part-") {
			created = append(created, name)
		}
	})
	last := c
	if c.lastPar != 0 {
		last.par = c.lastPar
	}
	err = last.pipeline(nil).To(c.sink(dir, !fresh)).Run(ctx)
	restore()
	if err != nil {
		t.Fatalf("the last run: %v", err)
	}
	if got := readTree(t, dir); !maps.EqualFunc(got, want, bytes.Equal) {
		var diff []string
		for name := range got {
			if !bytes.Equal(got[name], want[name]) {
				diff = append(diff, name)
			}
		}
		for name := range want {
			if _, ok := got[name]; !ok {
				diff = append(diff, name+" (missing)")
			}
		}
		slices.Sort(diff)
		t.Fatalf("after runs that failed at %v, the output differs from an uninterrupted run's in %q", c.fails, diff)
	}
	var wantCreated []string
	for _, f := range m.Files {
		if fresh || !slices.Contains(kept, f.Path) {
			wantCreated = append(wantCreated, f.Path)
		}
	}
	if !slices.Equal(created, wantCreated) {
		t.Errorf("the last run, after %d files kept, created %q, want %q", len(kept), created, wantCreated)
	}
}

// TestContinueAfterFailures: runs with Continue that fail, by an error of
// a Map stage or by the run's context cancelled, at rows along the
// stream, leave no file under a final name and no goroutine, keep only
// files of the uninterrupted run's output, and a last run, continuing or
// starting over, writes exactly the uninterrupted run's output. Cases
// cover the three formats, Parallel 1 and 3, a Shuffle or a Batch
// upstream of the sink, files cut by rows and by bytes, inside chunks and
// at their ends; go test ./... runs half of them, the long tests all.
func TestContinueAfterFailures(t *testing.T) {
	cases := []ctCase{
		{format: "parquet", rows: 600, chunk: 40, part: 130, par: 1, lastPar: 3, perFile: 70, group: 30, rid: true, fails: []int64{100, 555, 556}},
		{format: "parquet", rows: 600, chunk: 40, part: 130, par: 3, stateful: "shuffle", window: 50, perFile: 70, group: 30, fails: []int64{300, 500}},
		{format: "parquet", rows: 600, chunk: 25, part: 100, par: 3, stateful: "batch", window: 4, perFile: 9, group: 4, fails: []int64{20, 120}},
		{format: "parquet", rows: 600, chunk: 64, part: 200, par: 3, stateful: "shuffle", window: 20, perFile: 600, byBytes: true, group: 16, fails: []int64{300}, cancel: true},
		{format: "jsonl", rows: 600, chunk: 33, part: 99, par: 1, lastPar: 3, perFile: 50, rid: true, comp: "gzip", fails: []int64{49, 50, 500}},
		{format: "jsonl", rows: 600, chunk: 33, part: 99, par: 3, stateful: "shuffle", window: 37, perFile: 50, before: true, fails: []int64{410, 560}},
		{format: "jsonl", rows: 600, chunk: 17, part: 60, par: 3, stateful: "batch", window: 6, perFile: 11, fails: []int64{40, 80}, cancel: true},
		{format: "csv", rows: 600, chunk: 30, part: 90, par: 3, perFile: 60, fails: []int64{61, 480}},
		{format: "csv", rows: 600, chunk: 30, part: 90, par: 1, stateful: "shuffle", window: 45, perFile: 60, rid: true, comp: "zstd", fails: []int64{200, 450}, cancel: true},
		{format: "csv", rows: 600, chunk: 50, part: 50, par: 3, stateful: "batch", window: 5, perFile: 7, before: true, fails: []int64{300, 500}},
	}
	for i, c := range cases {
		for _, fresh := range []bool{false, true} {
			if !longtest.On() && (i%2 == 1 || fresh != (i%4 == 2)) {
				continue // the long tests run every case, continued and started over
			}
			t.Run(fmt.Sprintf("%v/fresh=%t", c, fresh), func(t *testing.T) {
				testutil.CheckGoroutines(t)
				runContinued(t, c, fresh)
			})
		}
	}
}

// FuzzContinueAfterFailures draws a case of runContinued: the format,
// the number of rows, the source's chunks and partitions, the
// parallelism of the failing runs and of the last, a Shuffle or Batch
// upstream and its size, files cut by rows or (Parquet) by bytes, the
// row group size, which Map fails, by an error or a cancellation, the
// rows at which two runs fail, whether the last run continues or
// starts over, the row-ID column and the compression. It checks them against an uninterrupted run's output.
func FuzzContinueAfterFailures(f *testing.F) {
	f.Add(uint8(0), uint16(400), uint8(40), uint8(130), uint8(0), uint8(0), uint8(0), uint8(70), false, uint8(30), false, false, uint16(100), uint16(355), false, uint8(0))
	f.Add(uint8(1), uint16(400), uint8(17), uint8(60), uint8(2), uint8(1), uint8(37), uint8(50), false, uint8(0), true, true, uint16(210), uint16(300), false, uint8(3))
	f.Add(uint8(2), uint16(300), uint8(50), uint8(50), uint8(3), uint8(2), uint8(5), uint8(7), false, uint8(0), false, false, uint16(30), uint16(90), true, uint8(5))
	f.Add(uint8(0), uint16(500), uint8(64), uint8(200), uint8(1), uint8(1), uint8(20), uint8(6), true, uint8(16), false, false, uint16(200), uint16(400), false, uint8(1))
	f.Fuzz(func(t *testing.T, format uint8, rows uint16, chunk, part, pars, stateful, window, perFile uint8, byBytes bool, group uint8,
		before, cancel bool, k1, k2 uint16, fresh bool, extras uint8) {
		c := ctCase{
			format:  []string{"parquet", "jsonl", "csv"}[format%3],
			rows:    1 + int(rows%1200),
			chunk:   1 + int(chunk),
			part:    1 + int(part),
			par:     []int{1, 3}[pars%2],
			lastPar: []int{1, 3}[pars/2%2],
			window:  1 + int(window%64),
			perFile: 1 + int64(perFile),
			byBytes: byBytes && format%3 == 0,
			group:   1 + int(group%100),
			before:  before,
			cancel:  cancel,
		}
		c.stateful = []string{"", "shuffle", "batch"}[stateful%3]
		c.rid = extras%2 == 1
		c.comp = [][]string{{"", "snappy", "none", "gzip"}, {"", "gzip", "zstd", "s2"}}[min(format%3, 1)][extras/2%4]
		if c.byBytes {
			c.perFile *= 40
		}
		ids := c.rows // the IDs the failing Map sees
		if c.stateful == "batch" && !c.before {
			ids = (c.rows + c.window - 1) / c.window
		}
		a, b := int64(k1)%int64(ids), int64(k2)%int64(ids)
		c.fails = []int64{min(a, b), max(a, b)}
		t.Logf("%v fresh=%t", c, fresh)
		testutil.CheckGoroutines(t)
		runContinued(t, c, fresh)
	})
}
