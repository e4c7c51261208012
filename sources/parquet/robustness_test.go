package parquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

type small struct {
	ID int64 `parquet:"id"`
}

// manyFiles writes n files of rowGroups row groups of 10 rows each.
func manyFiles(t *testing.T, n, rowGroups int) string {
	root := t.TempDir()
	for f := range n {
		rows := make([]small, 10*rowGroups)
		for i := range rows {
			rows[i].ID = int64(f*1000 + i)
		}
		testutil.WriteParquet(t, filepath.Join(root, fmt.Sprintf("f%03d.parquet", f)), rows, 10)
	}
	return root
}

// A dataset of more files than a run keeps open: every file the run
// opened is closed when it ends.
func TestParquetOpenFilesStayBounded(t *testing.T) {
	root := manyFiles(t, 80, 3)
	for _, n := range []int{1, 3} {
		before := openFDs(t)
		var count int64
		err := flow.From(parquet.Read[small](root)).Parallel(n).
			To(sinks.Count[small](&count)).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if count != 80*30 {
			t.Fatalf("parallelism %d: %d rows", n, count)
		}
		if after := openFDs(t); after != before {
			t.Errorf("parallelism %d: %d descriptors open before the run, %d after it ended", n, before, after)
		}
	}
}

// With WholeFiles, a file whose footer cannot be read is reported once,
// though the plan still hands out a fragment for it.
func TestParquetSkipReportsABadFileOnce(t *testing.T) {
	root := manyFiles(t, 2, 1)
	if err := os.WriteFile(filepath.Join(root, "f000.parquet"), []byte("not a parquet file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep sources.SkipReport
	var n int64
	err := flow.From(parquet.Read[small](root, sources.WholeFiles(), sources.SkipBad(&rep))).
		To(sinks.Count[small](&n)).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 1 || rep.FilesLost != 1 || n != 10 {
		t.Fatalf("one bad file: %d skip entries, %d rows: %+v", len(rep.Skipped), n, rep)
	}
}

// Column batches and records cannot give one file column two user names
// (structs can: two fields may read one column): the names must not
// depend on the order of a map. One user name for two columns is refused
// by every source.
func TestParquetRenameIsOneToOne(t *testing.T) {
	root := manyFiles(t, 1, 1)
	var recs []sources.Record
	err := flow.From(parquet.Read[sources.Record](root, parquet.Rename("id", "a"), parquet.Rename("id", "b"))).
		To(sinks.CollectValues(&recs)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), `two names, "a" and "b"`) {
		t.Errorf("Run = %v, want an error about the two names", err)
	}
	p := flow.From(parquet.Read[sources.Record](root, parquet.Rename("id", "a"), parquet.Rename("x", "a")))
	if p.Err() == nil || !strings.Contains(p.Err().Error(), "Rename") {
		t.Errorf("Err() = %v, want an error about Rename", p.Err())
	}
}
