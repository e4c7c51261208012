package operators_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

type csvRow struct {
	ID   int64  `csv:"id" parquet:"id"`
	Text string `csv:"text" parquet:"text"`
}

// writeCSV writes rows to path as CSV and sets its modification time to
// mod, so that a rewrite of the same size is told apart only by its
// contents.
func writeCSV(t *testing.T, path string, rows []csvRow, mod time.Time) {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,text\n")
	for _, r := range rows {
		b.WriteString(strings.Join([]string{strconv.FormatInt(r.ID, 10), r.Text}, ",") + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func rowsOf(n int, text string) []csvRow {
	rows := make([]csvRow, n)
	for i := range rows {
		rows[i] = csvRow{ID: int64(i), Text: text}
	}
	return rows
}

func valuesOf[T any](t *testing.T, p *flow.Pipeline) []T {
	t.Helper()
	var out []T
	for _, it := range collect[T](t, p) {
		out = append(out, it.Value)
	}
	return out
}

// TestDiskCacheCoversTheData: a disk cache over files is rebuilt when the
// files it was built from change (issue 27, finding 8: it replayed the old
// rows), even when a CSV file is rewritten at the same size and
// modification time, and a cache file built from other data and swapped
// in under the cache's name is rebuilt rather than replayed. The file
// records the data fingerprint it was built for.
func TestDiskCacheCoversTheData(t *testing.T) {
	mod := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, format := range []string{"csv", "parquet", "csv-memory"} {
		t.Run(format, func(t *testing.T) {
			memory := format == "csv-memory"
			format = strings.TrimSuffix(format, "-memory")
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			os.MkdirAll(data, 0o755)
			file := filepath.Join(data, "a."+format)
			write := func(text string) {
				rows := rowsOf(300, text)
				if format == "csv" {
					writeCSV(t, file, rows, mod)
					return
				}
				testutil.WriteParquet(t, file, rows, 100)
				os.Chtimes(file, mod, mod)
			}
			var src flow.Source[csvRow]
			if format == "csv" {
				src = text.CSV[csvRow](data, text.PartitionBytes(1024))
			} else {
				src = parquet.Read[csvRow](data)
			}
			path := filepath.Join(dir, "c.rfcache")
			var opts []operators.CacheOption
			if !memory {
				opts = append(opts, operators.OnDisk(path))
			}
			cache := operators.Cache[csvRow](flow.From(src), opts...)
			texts := func(rows []csvRow) []string {
				var out []string
				for _, r := range rows {
					out = append(out, r.Text)
				}
				return slices.Compact(out)
			}

			write("aaa")
			if got := texts(valuesOf[csvRow](t, flow.From(cache))); !slices.Equal(got, []string{"aaa"}) {
				t.Fatalf("first pass: %v", got)
			}
			old, err := os.ReadFile(path)
			if err != nil && !memory {
				t.Fatal(err)
			}
			write("bbb") // the same size, and the same time
			if got := texts(valuesOf[csvRow](t, flow.From(cache))); !slices.Equal(got, []string{"bbb"}) {
				t.Fatalf("after the input was rewritten: %v, want the new rows", got)
			}
			if got := texts(valuesOf[csvRow](t, flow.From(cache))); !slices.Equal(got, []string{"bbb"}) {
				t.Fatalf("the rebuilt cache replayed: %v", got)
			}
			if memory {
				return
			}
			// The cache of the old data swapped in under the cache's name.
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := texts(valuesOf[csvRow](t, flow.From(cache))); !slices.Equal(got, []string{"bbb"}) {
				t.Fatalf("a swapped cache file: %v, want the rows of the data now", got)
			}
		})
	}
}

// cacheHeaderEnd returns where a disk cache file's header ends: after its
// three lines (the magic, the cache ID and the data fingerprint).
func cacheHeaderEnd(b []byte) int {
	off := 0
	for range 3 {
		off += bytes.IndexByte(b[off:], '\n') + 1
	}
	return off
}
