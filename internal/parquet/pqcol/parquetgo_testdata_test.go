package pqcol

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// TestParquetGoTestdata reads the files parquet-go ships in its testdata
// besides those of parquet-testing (which TestParquetTestingData reads),
// written by Spark, parquet-mr, Arrow, DuckDB and others: every column of
// every row group decodes to what parquet-go's row reader gives. The
// files of malformed/ fail as corrupt, naming the file.
func TestParquetGoTestdata(t *testing.T) {
	dir := testutil.ParquetGoTestdata(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	variants, _ := filepath.Glob(filepath.Join(dir, "shredded_variant", "*.parquet"))
	if len(files) < 40 || len(variants) == 0 {
		t.Fatalf("%d files and %d shredded variants under %s", len(files), len(variants), dir)
	}
	others := 0
	for _, path := range append(files, variants...) {
		if _, ok := dataFiles[filepath.Base(path)]; ok {
			continue
		}
		others++
		t.Run(filepath.Base(path), func(t *testing.T) {
			cols, r, err := readWithDeadline(t, path)
			if err != nil {
				t.Fatal(err)
			}
			compareWithParquetGo(t, r, cols)
		})
	}
	if others < 20 {
		t.Fatalf("only %d files besides parquet-testing's", others)
	}
	malformed, _ := filepath.Glob(filepath.Join(dir, "malformed", "*.parquet"))
	if len(malformed) == 0 {
		t.Fatalf("no malformed files under %s", dir)
	}
	for _, path := range malformed {
		name := filepath.Base(path)
		_, _, err := readWithDeadline(t, path)
		var e *Error
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.File != name {
			t.Errorf("%s: got %v, want a corruption error naming the file", name, err)
		}
	}
}
