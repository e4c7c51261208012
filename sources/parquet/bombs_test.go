package parquet_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// dictBombRow is the row of a file whose one dictionary value, 64 KiB
// long, every row repeats: a few hundred bytes stored, 1.3 GB once read.
type dictBombRow struct {
	S string `parquet:"s,dict"`
}

// TestAmplificationBounded reads the dictionary bomb as records and as
// structs in child processes: each fails with an error naming the file,
// row group, column and the limit, with a peak RSS far under the 1.3 GB
// the rows would take.
func TestAmplificationBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a bomb in child processes")
	}
	if _, err := testutil.PeakRSS(); err != nil {
		t.Skipf("peak memory cannot be measured here: %v", err)
	}
	dir := t.TempDir()
	value := strings.Repeat("x", 64<<10)
	rows := make([]dictBombRow, 20000)
	for i := range rows {
		rows[i].S = value
	}
	path := filepath.Join(dir, "dict.parquet")
	testutil.WriteParquet(t, path, rows, len(rows), pq.PageBufferSize(1<<20))
	for _, shape := range []string{"records", "structs"} {
		t.Run(shape, func(t *testing.T) {
			got := testutil.RunChild(t, "TestHelperAmplification", shape+" "+dir)
			peak, _ := strconv.ParseInt(got["peak"], 10, 64)
			t.Logf("peak RSS %.1f MiB: %s", float64(peak)/(1<<20), got["err"])
			for _, want := range []string{"dict.parquet", "row group 0", `column "s"`, "MaxReadSize"} {
				if !strings.Contains(got["err"], want) {
					t.Errorf("the error does not say %s: %s", want, got["err"])
				}
			}
			testutil.CheckPeak(t, got["peak"], 512<<20)
		})
	}
}

// TestHelperAmplification is the child of TestAmplificationBounded.
func TestHelperAmplification(t *testing.T) {
	shape, dir, _ := strings.Cut(testutil.ChildArg(t), " ")
	if err := testutil.LimitAddressSpace(4 << 30); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var err error
	var n int64
	if shape == "records" {
		err = flow.From(parquet.Read[sources.Record](dir)).To(sinks.Count[sources.Record](&n)).Run(ctx)
	} else {
		err = flow.From(parquet.Read[dictBombRow](dir)).To(sinks.Count[dictBombRow](&n)).Run(ctx)
	}
	testutil.ReportRun(t, n, err)
}

// TestMaxReadSize: the option sets the limit: a small file reads with the
// default and fails under a limit below what one of its columns takes.
func TestMaxReadSize(t *testing.T) {
	dir := t.TempDir()
	rows := []dictBombRow{{"abc"}, {"defg"}, {"abc"}}
	testutil.WriteParquet(t, filepath.Join(dir, "small.parquet"), rows, 3)
	var n int64
	if err := flow.From(parquet.Read[dictBombRow](dir)).To(sinks.Count[dictBombRow](&n)).Run(t.Context()); err != nil || n != 3 {
		t.Fatalf("default limit: %d rows, %v", n, err)
	}
	err := flow.From(parquet.Read[dictBombRow](dir, parquet.MaxReadSize(8))).To(sinks.Count[dictBombRow](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "the limit is 8 bytes") {
		t.Fatalf("MaxReadSize(8): got %v", err)
	}
}

// twoColumns has two string columns that each stay under a read limit
// that the two together pass.
type twoColumns struct {
	A string `parquet:"a"`
	B string `parquet:"b"`
}

// TestMaxReadSizeCoversTheFragment: the limit bounds all the columns of a
// fragment together, not each column on its own.
func TestMaxReadSizeCoversTheFragment(t *testing.T) {
	dir := t.TempDir()
	rows := make([]twoColumns, 100)
	for i := range rows {
		rows[i] = twoColumns{A: strings.Repeat("a", 1000) + strconv.Itoa(i), B: strings.Repeat("b", 1000) + strconv.Itoa(i)}
	}
	testutil.WriteParquet(t, filepath.Join(dir, "two.parquet"), rows, len(rows))
	// One column holds about 100 KB of values and offsets; the limit is
	// above that and below the two together.
	const limit = 150_000
	var n int64
	if err := flow.From(parquet.Read[twoColumns](dir, parquet.MaxReadSize(limit), parquet.Columns("a"))).
		To(sinks.Count[twoColumns](&n)).Run(t.Context()); err != nil || n != 100 {
		t.Fatalf("one column under the limit: %d rows, %v", n, err)
	}
	for name, run := range map[string]func() error{
		"structs": func() error {
			return flow.From(parquet.Read[twoColumns](dir, parquet.MaxReadSize(limit))).To(sinks.Count[twoColumns](&n)).Run(t.Context())
		},
		"records": func() error {
			return flow.From(parquet.Read[sources.Record](dir, parquet.MaxReadSize(limit))).To(sinks.Count[sources.Record](&n)).Run(t.Context())
		},
	} {
		err := run()
		if err == nil || !strings.Contains(err.Error(), "the other columns of this read take") || !strings.Contains(err.Error(), `column "b"`) {
			t.Errorf("%s: two columns over the limit together: %v", name, err)
		}
	}
}
