package parquet_test

import (
	"fmt"
	"path/filepath"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// pagedRow is a row of a file sorted by id, with a payload that does not
// compress, so that pages have real sizes.
type pagedRow struct {
	ID      int64  `parquet:"id"`
	Payload int64  `parquet:"payload"`
	Tag     string `parquet:"tag,dict"`
}

// TestParquetInBucketPageFilterBytes: a row filter on the sorted column
// of a file in a bucket, one row group of 400,000 rows in pages of about
// 2,000, asks the server only for the pages it needs: the bytes asked
// for are at most 1.2 times those of the footer's tail, the page indexes,
// the dictionary page (of the tag column) and the pages that hold the
// kept rows, in every column.
func TestParquetInBucketPageFilterBytes(t *testing.T) {
	s3 := testutil.StartS3(t)
	const n = 400000
	rows := make([]pagedRow, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range rows {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		rows[i] = pagedRow{ID: int64(i), Payload: int64(x), Tag: fmt.Sprintf("tag%03d", x%500)}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "sorted.parquet")
	testutil.WriteParquet(t, path, rows, n, pq.PageBufferSize(16<<10))
	url := s3.Upload(t, dir, "data", "")

	const lo, hi = 200000, 200999
	r := openPqcol(t, path)
	idRows, _ := pageRows(t, r, 0, "id")
	// The rows the id pages that may hold lo..hi cover.
	var from, to int64 = -1, 0
	for _, p := range idRows {
		if p[0] <= hi && p[1] > lo {
			if from < 0 {
				from = p[0]
			}
			to = p[1]
		}
	}
	need := int64(objstore.FooterTail)
	meta := r.File().Metadata().RowGroups[0]
	for _, name := range []string{"id", "payload", "tag"} {
		c, _ := r.LookupLeaf(name)
		cc := meta.Columns[c]
		need += int64(cc.OffsetIndexLength) + int64(cc.ColumnIndexLength)
		_, pages := pageRows(t, r, 0, name)
		if start := cc.MetaData.DataPageOffset; cc.MetaData.DictionaryPageOffset > 0 && cc.MetaData.DictionaryPageOffset < start {
			need += start - cc.MetaData.DictionaryPageOffset // the dictionary page
		}
		rowsOf, _ := pageRows(t, r, 0, name)
		for i, p := range pages {
			if rowsOf[i][0] < to && rowsOf[i][1] > from {
				need += int64(p.CompressedPageSize)
			}
		}
	}
	before := objstore.Requested()
	got := testutil.Items[pagedRow](t, flow.From(parquet.Read[pagedRow](url,
		parquet.RowFilter(sources.And(sources.Ge("id", lo), sources.Le("id", hi))))))
	asked := objstore.Requested() - before
	if len(got) != hi-lo+1 || got[0].Value.ID != lo || got[len(got)-1].Value.ID != hi {
		t.Fatalf("%d rows kept, want %d from id %d", len(got), hi-lo+1, lo)
	}
	t.Logf("%d bytes asked for; %d in the footer's tail, the page indexes and the %d pages' rows [%d, %d) of every column (%.3fx); %d in the chunks",
		asked, need, len(idRows), from, to, float64(asked)/float64(need), meta.TotalByteSize)
	if float64(asked) > 1.2*float64(need) {
		t.Errorf("%d bytes asked for, more than 1.2 times the %d bytes needed", asked, need)
	}
}
