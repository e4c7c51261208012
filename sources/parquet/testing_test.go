package parquet_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// failing lists the files of parquet-testing/data that must fail, with a
// word their error must contain; every other file must read all the rows
// its footer declares.
var failing = map[string]string{
	"datapage_v1-corrupt-checksum.parquet":           "checksum",
	"rle-dict-uncompressed-corrupt-checksum.parquet": "checksum",
	"hadoop_lz4_compressed.parquet":                  "unsupported",
	"large_string_map.brotli.parquet":                "MaxPageSize",
}

// TestParquetGoTestdata reads every file parquet-go ships in its testdata,
// written by several implementations: each reads all the rows its footer
// declares, and each file of malformed/ fails with an error naming it.
func TestParquetGoTestdata(t *testing.T) {
	dir := testutil.ParquetGoTestdata(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	variants, _ := filepath.Glob(filepath.Join(dir, "shredded_variant", "*.parquet"))
	if len(files) < 40 || len(variants) == 0 {
		t.Fatalf("%d files and %d shredded variants under %s", len(files), len(variants), dir)
	}
	for _, path := range append(files, variants...) {
		var n int64
		err := flow.From(parquet.Read[sources.Record](path)).Parallel(2).To(sinks.Count[sources.Record](&n)).Run(context.Background())
		if want := declaredRows(t, path); err != nil || n != want {
			t.Errorf("%s: %d rows, %v; want all %d rows", filepath.Base(path), n, err, want)
		}
	}
	malformed, _ := filepath.Glob(filepath.Join(dir, "malformed", "*.parquet"))
	if len(malformed) == 0 {
		t.Fatalf("no malformed files under %s", dir)
	}
	for _, path := range malformed {
		var n int64
		err := flow.From(parquet.Read[sources.Record](path)).To(sinks.Count[sources.Record](&n)).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), filepath.Base(path)) || n != 0 {
			t.Errorf("%s: %d rows, %v; want an error naming the file", filepath.Base(path), n, err)
		}
	}
}

// TestParquetTestingData reads the files of parquet-testing/data, when the
// corpus is there.
func TestParquetTestingData(t *testing.T) {
	corpus := testutil.SharedCorpus(t)
	files, _ := filepath.Glob(filepath.Join(corpus, "data", "*.parquet"))
	if len(files) < 30 {
		t.Fatalf("%d test files under %s", len(files), corpus)
	}
	for _, path := range files {
		name := filepath.Base(path)
		var n int64
		err := flow.From(parquet.Read[sources.Record](path)).To(sinks.Count[sources.Record](&n)).Run(context.Background())
		word, mustFail := failing[name]
		switch {
		case mustFail && err == nil:
			t.Errorf("%s: read %d rows, want an error about %s", name, n, word)
		case mustFail && (!strings.Contains(err.Error(), word) || !strings.Contains(err.Error(), name)):
			t.Errorf("%s: error %q does not name the file and %s", name, firstLine(err.Error()), word)
		case !mustFail && err != nil:
			t.Errorf("%s: %v", name, err)
		case !mustFail && n != declaredRows(t, path):
			t.Errorf("%s: %d rows, the footer declares %d", name, n, declaredRows(t, path))
		}
	}
}

// TestParquetBadData: every file of parquet-testing/bad_data fails with an
// error naming it, except ARROW-GH-43605.parquet. That file crashed other
// readers, but it is valid: its dictionary indexes are RLE-encoded with
// bit width 0, which is legal for a one-entry dictionary (Arrow's fix for
// the issue reads it too), so it must read all its rows.
func TestParquetBadData(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.SharedCorpus(t), "bad_data", "*.parquet"))
	if len(files) == 0 {
		t.Fatal("no bad_data files")
	}
	for _, path := range files {
		var n int64
		err := flow.From(parquet.Read[sources.Record](path)).Parallel(2).To(sinks.Count[sources.Record](&n)).Run(context.Background())
		if filepath.Base(path) == "ARROW-GH-43605.parquet" {
			if err != nil || n != declaredRows(t, path) {
				t.Errorf("%s: %d rows, %v; want all %d rows", filepath.Base(path), n, err, declaredRows(t, path))
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: read %d rows, want an error", filepath.Base(path), n)
		} else if !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Errorf("%s: error does not name the file: %v", filepath.Base(path), firstLine(err.Error()))
		}
		if n != 0 {
			t.Errorf("%s: a failed run stored a count", filepath.Base(path))
		}
	}
}

// declaredRows reads a file's row count from its footer.
func declaredRows(t *testing.T, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := pq.OpenFile(f, st.Size(), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
	if err != nil {
		// parquet-go refuses a key-value entry without a value
		// (column_chunk_key_value_metadata.parquet), which the format
		// allows: count from pqcol's view of the footer.
		r, perr := pqcol.Open(path, f, st.Size())
		if perr != nil {
			t.Fatalf("%s: %v", path, err)
		}
		n := int64(0)
		for rg := range r.NumRowGroups() {
			n += r.NumRows(rg)
		}
		return n
	}
	// Some writers leave the file's num_rows at 0 (repeated_no_annotation):
	// count the row groups' rows.
	n := int64(0)
	for _, rg := range pf.Metadata().RowGroups {
		n += rg.NumRows
	}
	return n
}

// TestColumnChunkKeyValueMetadata reads parquet-testing's
// column_chunk_key_value_metadata.parquet, when the corpus has it: a
// column chunk's key-value entry without a value (valid) was refused.
func TestColumnChunkKeyValueMetadata(t *testing.T) {
	path := filepath.Join(testutil.SharedCorpus(t), "data", "column_chunk_key_value_metadata.parquet")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("not in the corpus: %v", err)
	}
	var n int64
	err := flow.From(parquet.Read[sources.Record](path)).To(sinks.Count[sources.Record](&n)).Run(context.Background())
	if want := declaredRows(t, path); err != nil || n != want {
		t.Fatalf("%d rows, %v; want all %d rows", n, err, want)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
