package pqcol

import (
	"context"
	"encoding/csv"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/testutil"
)

// outcome is what reading a test file must give.
type outcome int

const (
	// matches: every column of every row group decodes, and levels, row
	// counts and values equal parquet-go's row reader's.
	matches outcome = iota
	// decodesAlone: every column decodes but parquet-go's row reader cannot
	// serve as the reference; the file's test checks values by hand.
	decodesAlone
	failsChecksum    // a page CRC does not match: ErrChecksum
	failsUnsupported // ErrUnsupported
	failsTooLarge    // a page exceeds MaxPageSize: ErrPageTooLarge
	failsCorrupt     // ErrCorrupt (not a checksum error)
)

func (o outcome) String() string {
	return [...]string{"matches parquet-go", "decodes (checked by hand)", "checksum error",
		"unsupported", "page too large", "corrupt"}[o]
}

// dataFiles is what each file in parquet-testing/data must do. The test
// fails if a file is missing from this table or the table names a file
// that is not there.
var dataFiles = map[string]outcome{
	"alltypes_dictionary.parquet":                    matches,
	"alltypes_plain.parquet":                         matches,
	"alltypes_plain.snappy.parquet":                  matches,
	"alltypes_tiny_pages.parquet":                    matches,
	"binary.parquet":                                 matches,
	"byte_array_decimal.parquet":                     matches,
	"byte_stream_split.zstd.parquet":                 matches,
	"concatenated_gzip_members.parquet":              matches,
	"datapage_v1-corrupt-checksum.parquet":           failsChecksum,
	"datapage_v1-snappy-compressed-checksum.parquet": matches,
	"datapage_v2.snappy.parquet":                     matches,
	// parquet-go hands the page's empty values section to snappy, which
	// rejects it; pqcol treats it as no values.
	"datapage_v2_empty_datapage.snappy.parquet": decodesAlone,
	"delta_binary_packed.parquet":               matches,
	"delta_byte_array.parquet":                  matches,
	"delta_encoding_optional_column.parquet":    matches,
	"delta_length_byte_array.parquet":           matches,
	"fixed_length_decimal.parquet":              matches,
	// The deprecated Hadoop LZ4 framing: parquet-go has no codec for it.
	"hadoop_lz4_compressed.parquet": failsUnsupported,
	"int32_with_null_pages.parquet": matches,
	"int64_decimal.parquet":         matches,
	"int96_from_spark.parquet":      matches,
	// Pages of 1 GiB compressed to 1.6 KB with brotli.
	"large_string_map.brotli.parquet": failsTooLarge,
	"list_columns.parquet":            matches,
	"lz4_raw_compressed.parquet":      matches,
	// parquet-go v0.32.0 decodes this file's LZ4_RAW page into a buffer it
	// then discards, returning stale memory ("byte array page has 100001
	// offsets but numValues is 10000"); see TestLZ4RawLarger.
	"lz4_raw_compressed_larger.parquet":              decodesAlone,
	"nested_lists.snappy.parquet":                    matches,
	"nested_maps.snappy.parquet":                     matches,
	"nested_structs.rust.parquet":                    matches,
	"nonnullable.impala.parquet":                     matches,
	"null_list.parquet":                              matches,
	"nullable.impala.parquet":                        matches,
	"nulls.snappy.parquet":                           matches,
	"repeated_no_annotation.parquet":                 matches,
	"rle-dict-uncompressed-corrupt-checksum.parquet": failsChecksum,
	"single_nan.parquet":                             matches,
	"sort_columns.parquet":                           matches,
}

// badFiles is what each file in parquet-testing/bad_data must do.
var badFiles = map[string]struct {
	outcome outcome
	column  string // the column the error must name
}{
	// Column chunks whose metadata disagree with their pages: the chunk
	// of this column holds no data pages where its metadata counts 3 values.
	"ARROW-GH-41317.parquet": {failsCorrupt, "timestamp_us_no_tz"},
	// Reproduces a crash of Arrow's Go reader on dictionary indexes of bit
	// width 0. The file is valid (a one-value dictionary, a bit-packed run
	// of width 0); it must decode, see TestBitWidthZeroIndexes.
	"ARROW-GH-43605.parquet": {matches, ""},
	// Repetition levels that start with 1: the chunk starts inside a row.
	"ARROW-GH-45185.parquet": {failsCorrupt, "x.list.element"},
	// A dictionary page header without its required num_values.
	"ARROW-RS-GH-6229-DICTHEADER.parquet": {failsCorrupt, "nation_key"},
	// A schema element whose physical type is out of range.
	"PARQUET-1481.parquet": {failsCorrupt, "Handle"},
}

func listParquet(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test files in %s: %v", dir, err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return names
}

func checkTable[V any](t *testing.T, names []string, table map[string]V) {
	t.Helper()
	for _, n := range names {
		if _, ok := table[n]; !ok {
			t.Errorf("%s is not in the table of expected outcomes", n)
		}
	}
	for n := range table {
		if !slices.Contains(names, n) {
			t.Errorf("the table lists %s, which is not in the test data", n)
		}
	}
}

// readWithDeadline reads every column of every row group of a file, giving
// up (as a test failure) if that takes more than a minute, so that a hang
// is reported rather than stalling the test binary.
func readWithDeadline(t *testing.T, path string, options ...Option) ([][]flat, *Reader, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	type result struct {
		cols [][]flat
		r    *Reader
		err  error
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{err: errors.New("panic escaped: " + strings.TrimSpace(stringOf(v)))}
			}
		}()
		r, err := Open(filepath.Base(path), f, st.Size(), options...)
		if err != nil {
			done <- result{err: err}
			return
		}
		cols, err := readAll(ctx, r)
		done <- result{cols, r, err}
	}()
	timer := time.NewTimer(time.Minute + 10*time.Second)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.cols, res.r, res.err
	case <-timer.C:
		t.Fatalf("%s: reading did not finish", filepath.Base(path))
		return nil, nil, nil
	}
}

func stringOf(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "non-string panic value"
}

// checkOutcome asserts that err is what o demands and that a failure names
// the file, a row group and the column.
func checkOutcome(t *testing.T, name string, o outcome, column string, err error) {
	t.Helper()
	want := map[outcome]error{failsChecksum: ErrChecksum, failsUnsupported: ErrUnsupported,
		failsTooLarge: ErrPageTooLarge, failsCorrupt: ErrCorrupt}[o]
	if want == nil {
		if err != nil {
			t.Fatalf("%s: want %s, got %v", name, o, err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s: want %s, got %v", name, o, err)
	}
	if o == failsCorrupt && errors.Is(err, ErrChecksum) {
		t.Fatalf("%s: want a corruption other than a checksum mismatch, got %v", name, err)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: the error is not a *pqcol.Error: %v", name, err)
	}
	if e.File != name || e.RowGroup < 0 || e.Column == "" || (column != "" && e.Column != column) {
		t.Fatalf("%s: the error does not name the file, row group and column %q: %+v", name, column, e)
	}
	msg := err.Error()
	if !strings.Contains(msg, name) || !strings.Contains(msg, "row group "+strconv.Itoa(e.RowGroup)) ||
		!strings.Contains(msg, strconv.Quote(e.Column)) {
		t.Fatalf("%s: the message does not name file, row group and column: %s", name, msg)
	}
}

// TestParquetTestingData reads the files of parquet-testing/data: those
// parquet-go ships in its testdata everywhere, the others when the shared
// corpus is there.
func TestParquetTestingData(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(dataFiles)) {
		t.Run(name, func(t *testing.T) {
			path := testutil.ParquetTestingFile(t, "data/"+name)
			o := dataFiles[name]
			cols, r, err := readWithDeadline(t, path)
			checkOutcome(t, name, o, "", err)
			if o != matches {
				return
			}
			compareWithParquetGo(t, r, cols)
			checkFileRanges(t, r, cols)
			if csvPath := strings.TrimSuffix(path, ".parquet") + "_expect.csv"; fileExists(csvPath) {
				compareWithCSV(t, r, cols, csvPath)
			}
		})
	}
}

// TestParquetTestingTables checks that the tables of outcomes name exactly
// the files of the shared corpus.
func TestParquetTestingTables(t *testing.T) {
	dir := testutil.SharedCorpus(t)
	checkTable(t, listParquet(t, filepath.Join(dir, "data")), dataFiles)
	checkTable(t, listParquet(t, filepath.Join(dir, "bad_data")), badFiles)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func compareWithParquetGo(t *testing.T, r *Reader, cols [][]flat) {
	t.Helper()
	for rg := range r.NumRowGroups() {
		want, err := referenceRowGroup(r.File(), r.Leaves(), rg)
		if err != nil {
			t.Fatalf("parquet-go reference, row group %d: %v", rg, err)
		}
		meta := r.File().Metadata().RowGroups[rg]
		for c, leaf := range r.Leaves() {
			got := cols[rg][c]
			if err := equalFlat(normalize(got), normalize(want[c])); err != nil {
				t.Errorf("row group %d, column %s: %v", rg, leaf.PathString(), err)
			}
			levels := int64(len(got.values))
			if leaf.MaxRepetitionLevel > 0 {
				levels = int64(len(got.rep))
			} else if leaf.MaxDefinitionLevel > 0 {
				levels = int64(len(got.def))
			}
			if levels != meta.Columns[c].MetaData.NumValues || got.rows != meta.NumRows {
				t.Errorf("row group %d, column %s: %d values in %d rows, metadata says %d in %d",
					rg, leaf.PathString(), levels, got.rows, meta.Columns[c].MetaData.NumValues, meta.NumRows)
			}
		}
	}
}

// compareWithCSV compares each column with the file's _expect.csv, whose
// columns are the leaf columns in order and whose empty fields are nulls.
func compareWithCSV(t *testing.T, r *Reader, cols [][]flat, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header, records := records[0], records[1:]
	if len(header) != len(r.Leaves()) {
		t.Fatalf("%s has %d columns, the file %d leaf columns", filepath.Base(path), len(header), len(r.Leaves()))
	}
	for c, leaf := range r.Leaves() {
		var got []string
		for rg := range cols {
			got = append(got, renderPlain(leaf, cols[rg][c])...)
		}
		if len(got) != len(records) {
			t.Fatalf("column %s: %d rows, %s has %d", leaf.PathString(), len(got), filepath.Base(path), len(records))
		}
		for i, rec := range records {
			if got[i] != rec[c] {
				t.Fatalf("column %s, row %d: got %q, %s has %q", leaf.PathString(), i, got[i], filepath.Base(path), rec[c])
			}
		}
	}
	t.Logf("%d rows of %d columns equal %s", len(records), len(header), filepath.Base(path))
}

// renderPlain renders a flat non-repeated column as the CSV files do:
// integers in decimal, byte arrays as text, nulls as empty fields.
func renderPlain(leaf Leaf, col flat) []string {
	out := make([]string, 0, col.rows)
	v := 0
	for i := range int(col.rows) {
		if leaf.MaxDefinitionLevel > 0 && int(col.def[i]) != leaf.MaxDefinitionLevel {
			out = append(out, "")
			continue
		}
		out = append(out, col.values[v])
		v++
	}
	return out
}

func TestParquetTestingBadData(t *testing.T) {
	dir := filepath.Join(testutil.SharedCorpus(t), "bad_data")
	names := listParquet(t, dir)
	for _, name := range names {
		want, ok := badFiles[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			cols, r, err := readWithDeadline(t, filepath.Join(dir, name))
			checkOutcome(t, name, want.outcome, want.column, err)
			if want.outcome == matches {
				compareWithParquetGo(t, r, cols)
			}
		})
	}
}

// TestDecompressionBomb reads a 4 KB file of the shared corpus whose pages
// decompress to 1 GiB each: with the default limit it fails before
// decompressing anything, quickly and with little memory.
func TestDecompressionBomb(t *testing.T) {
	path := testutil.ParquetTestingFile(t, "data/large_string_map.brotli.parquet")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := readWithDeadline(t, path)
	runtime.ReadMemStats(&after)
	checkOutcome(t, "large_string_map.brotli.parquet", failsTooLarge, "arr.key_value.key", err)
	var e *Error
	errors.As(err, &e)
	if e.Page != 0 || e.Offset != 4 || e.Row != 0 {
		t.Fatalf("the error should locate the first page: %+v", e)
	}
	if !strings.Contains(err.Error(), "1073741828 bytes decompressed") || !strings.Contains(err.Error(), "MaxPageSize") {
		t.Fatalf("the message should state the declared size and the limit: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Fatalf("allocated %d bytes before failing", alloc)
	}
}

// TestMaxPageSize: a limit below a page's declared size fails the way a
// decompression bomb does, on an ordinary file, and above it the file
// reads.
func TestMaxPageSize(t *testing.T) {
	small := testutil.ParquetTestingFile(t, "data/alltypes_plain.parquet")
	if _, _, err := readWithDeadline(t, small, MaxPageSize(16)); !errors.Is(err, ErrPageTooLarge) {
		t.Fatalf("MaxPageSize(16): got %v, want ErrPageTooLarge", err)
	}
	if _, _, err := readWithDeadline(t, small, MaxPageSize(1<<20)); err != nil {
		t.Fatalf("MaxPageSize(1 MiB): %v", err)
	}
	if _, err := NewReader("x", nil, MaxPageSize(0)); !errors.Is(err, ErrArgument) {
		t.Fatalf("MaxPageSize(0): got %v, want ErrArgument", err)
	}
}

// TestEmptyDataPageV2 checks the one row of datapage_v2_empty_datapage: a
// null FLOAT in a data page v2 whose values section is empty.
func TestEmptyDataPageV2(t *testing.T) {
	cols, r, err := readWithDeadline(t, testutil.ParquetTestingFile(t, "data/datapage_v2_empty_datapage.snappy.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Leaves()) != 1 || r.Leaves()[0].Kind != parquet.Float || r.Leaves()[0].MaxDefinitionLevel != 1 {
		t.Fatalf("unexpected schema %+v", r.Leaves())
	}
	got := cols[0][0]
	if got.rows != 1 || !slices.Equal(got.def, []byte{0}) || len(got.values) != 0 {
		t.Fatalf("want one null row, got %+v", got)
	}
}

// TestLZ4RawLarger checks lz4_raw_compressed_larger's 10000 UUID strings
// against facts that do not depend on a reference reader: every value is
// a UUID, they are distinct, the first is the one other readers report, and
// the smallest and largest equal the page statistics' min and max.
func TestLZ4RawLarger(t *testing.T) {
	cols, r, err := readWithDeadline(t, testutil.ParquetTestingFile(t, "data/lz4_raw_compressed_larger.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	got := cols[0][0]
	if got.rows != 10000 || len(got.values) != 10000 {
		t.Fatalf("want 10000 values, got %d in %d rows", len(got.values), got.rows)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i, v := range got.values {
		if !uuid.MatchString(v) || seen[v] {
			t.Fatalf("value %d: %q is not a new UUID", i, v)
		}
		seen[v] = true
	}
	if got.values[0] != "c7ce6bef-d5b0-4863-b199-8ea8c7fb117b" {
		t.Fatalf("first value %q", got.values[0])
	}
	sorted := slices.Sorted(slices.Values(got.values))
	stats := pageStatistics(t, r)
	if sorted[0] != string(stats.MinValue) || sorted[len(sorted)-1] != string(stats.MaxValue) {
		t.Fatalf("min/max %q/%q, statistics say %q/%q", sorted[0], sorted[len(sorted)-1], stats.MinValue, stats.MaxValue)
	}
}

// TestBitWidthZeroIndexes checks ARROW-GH-43605: a one-value dictionary
// whose indexes are a bit-packed run of width 0 decodes to that value.
func TestBitWidthZeroIndexes(t *testing.T) {
	cols, _, err := readWithDeadline(t, testutil.ParquetTestingFile(t, "bad_data/ARROW-GH-43605.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	got := cols[0][0]
	if got.rows != 21186 || len(got.values) != 21186 {
		t.Fatalf("want 21186 values, got %d in %d rows", len(got.values), got.rows)
	}
	for i, v := range got.values {
		if v != "0" {
			t.Fatalf("value %d: %q, want the dictionary's only value 0", i, v)
		}
	}
}

// pageStatistics returns the statistics in the header of the first page of
// the first column chunk.
func pageStatistics(t *testing.T, r *Reader) format.Statistics {
	t.Helper()
	cm := &r.File().Metadata().RowGroups[0].Columns[0].MetaData
	start, end, err := chunkBounds(cm, r.File().Size())
	if err != nil {
		t.Fatal(err)
	}
	var d decoder
	d.init(r.cfg, &r.Leaves()[0], cm.Codec)
	d.win.reset(r.File(), start, end)
	p, err := d.readPage(start, true)
	if err != nil || !p.header.DataPageHeader.Valid {
		t.Fatalf("first page: %v", err)
	}
	return p.header.DataPageHeader.V.Statistics
}

// checkFileRanges reads row ranges of every column chunk, seeking with the
// offset index where there is one and then scanning, and compares them with
// the whole chunks.
func checkFileRanges(t *testing.T, r *Reader, cols [][]flat) {
	t.Helper()
	points := []int64{0, 1, 2, 3, 5, 8, 100, 1000, 3650}
	for rg := range r.NumRowGroups() {
		n := r.NumRows(rg)
		points = append(points, n/2, n-1, n)
	}
	checkRanges(t, r, cols, points)
	r.cfg.ignoreIndex = true
	checkRanges(t, r, cols, points)
	r.cfg.ignoreIndex = false
}
