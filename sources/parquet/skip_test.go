package parquet_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// badDataset holds two good files, a copy of the first with a page whose
// checksum no longer matches in every row group, and a copy cut short
// inside its footer.
func badDataset(t *testing.T) (root string, goodRows int64) {
	root = t.TempDir()
	for i, name := range []string{"a.parquet", "d.parquet"} {
		rows := makeRows(i, 500)
		testutil.WriteParquet(t, filepath.Join(root, name), rows, 100)
		goodRows += int64(len(rows))
	}
	good, err := os.ReadFile(filepath.Join(root, "a.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.parquet"), testutil.CorruptPages(t, good), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "c.parquet"), good[:len(good)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	return root, goodRows
}

func TestParquetFailsFastByDefault(t *testing.T) {
	root, _ := badDataset(t)
	var n int64
	err := flow.From(parquet.Read[sources.Record](root)).To(sinks.Count[sources.Record](&n)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "b.parquet") {
		t.Fatalf("Run = %v, want an error naming b.parquet", err)
	}
}

func TestParquetSkipsBadFragmentsDeterministically(t *testing.T) {
	testutil.CheckGoroutines(t)
	root, goodRows := badDataset(t)
	var ref sources.SkipReport
	var refItems []flow.Item[sources.Record]
	for _, n := range []int{1, 2, 3} {
		var report sources.SkipReport
		var items []flow.Item[sources.Record]
		err := flow.From(parquet.Read[sources.Record](root, sources.SkipBad(&report), parquet.MaxRows(64))).
			Parallel(n).To(sinks.Collect(&items)).Run(context.Background())
		if err != nil {
			t.Fatalf("parallelism %d: %v", n, err)
		}
		if int64(len(items)) != goodRows {
			t.Fatalf("parallelism %d: %d rows, want the good files' %d", n, len(items), goodRows)
		}
		if report.FilesLost != 1 || report.RowsLost == 0 || len(report.Skipped) < 2 {
			t.Fatalf("parallelism %d: report %+v", n, report)
		}
		if s := report.Skipped[0]; s.Path != "c.parquet" || s.Part != -1 {
			t.Fatalf("parallelism %d: first skip %+v, want the file c.parquet", n, s)
		}
		for _, s := range report.Skipped[1:] {
			if s.Path != "b.parquet" || !strings.Contains(s.Err, "checksum") {
				t.Fatalf("parallelism %d: skip %+v, want b.parquet's checksum", n, s)
			}
		}
		if n == 1 {
			ref, refItems = report, items
			continue
		}
		if !reflect.DeepEqual(report, ref) || !reflect.DeepEqual(items, refItems) {
			t.Fatalf("parallelism %d: the report or the rows differ from the serial run", n)
		}
	}
}

// withRowGroupRows returns a copy of the Parquet file data whose footer
// declares n rows for row group rg.
func withRowGroupRows(t *testing.T, data []byte, rg int, n int64) []byte {
	t.Helper()
	return editFooter(t, data, func(md *format.FileMetaData, _ int64) []byte {
		md.NumRows += n - md.RowGroups[rg].NumRows
		md.RowGroups[rg].NumRows = n
		return nil
	})
}

// TestFooterRowCountMismatch: a file whose footer declares fewer rows for
// a row group than its column chunks hold fails the run, naming it, or is
// skipped and reported whole; its rows are never read in part.
func TestFooterRowCountMismatch(t *testing.T) {
	root := t.TempDir()
	testutil.WriteParquet(t, filepath.Join(root, "a.parquet"), makeRows(0, 500), 100)
	good, err := os.ReadFile(filepath.Join(root, "a.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "b.parquet"), withRowGroupRows(t, good, 1, 60), 0o644); err != nil {
		t.Fatal(err)
	}
	var n int64
	err = flow.From(parquet.Read[sources.Record](root)).To(sinks.Count[sources.Record](&n)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "b.parquet") || !strings.Contains(err.Error(), "row group 1") ||
		!strings.Contains(err.Error(), "declares 60 rows") {
		t.Fatalf("Run = %v, want an error naming b.parquet, row group 1 and its count", err)
	}
	var report sources.SkipReport
	n = 0
	err = flow.From(parquet.Read[sources.Record](root, sources.SkipBad(&report))).
		To(sinks.Count[sources.Record](&n)).Run(context.Background())
	if err != nil || n != 500 {
		t.Fatalf("with SkipBadFragments: %d rows, %v; want a.parquet's 500", n, err)
	}
	if report.FilesLost != 1 || len(report.Skipped) != 1 || report.Skipped[0].Path != "b.parquet" {
		t.Fatalf("report %+v, want b.parquet skipped whole", report)
	}
}
