package shards_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	sparquet "github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// columnsOpts are the sink options of the comparisons of Parquet of
// column batches with Parquet of records: the schema, and small row
// groups, pages and files, so that every cut falls inside a batch.
func columnsOpts(schema *pq.Schema, writers int) []shards.ParquetOption {
	return []shards.ParquetOption{shards.Schema(schema), shards.RowIDColumn("rid"), shards.Writers(writers),
		shards.RowGroupRows(700), shards.PageSize(4096), shards.RowsPerFile(1500)}
}

// sameFiles fails t unless the data files of the outputs a and b are
// the same bytes, their pipelines' fingerprints aside (the sources
// differ, so the fingerprints do).
func sameFiles(t *testing.T, name, a, b string) {
	t.Helper()
	ma, err := shards.ReadManifest(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := shards.ReadManifest(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ma.Rows != mb.Rows || len(ma.Files) != len(mb.Files) {
		t.Fatalf("%s: records wrote %d rows in %d files, columns %d in %d", name, ma.Rows, len(ma.Files), mb.Rows, len(mb.Files))
	}
	fa, fb := readTree(t, a), readTree(t, b)
	for path, want := range fa {
		if !strings.HasSuffix(path, ".parquet") {
			continue
		}
		got := bytes.ReplaceAll(fb[path], []byte(mb.Fingerprint), []byte(ma.Fingerprint))
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %s differs: %d bytes from columns, %d from records", name, path, len(got), len(want))
		}
	}
}

// TestParquetBatchesWriteWhatRecordsWrite reshards the Parquet files of
// parquet-go's testdata, written by other implementations, once as
// records and once as column batches, with one and two writers: the
// files are the same bytes, lists of every nesting and nulls at every
// depth included (RecordSchema makes every list and element optional).
func TestParquetBatchesWriteWhatRecordsWrite(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testutil.ParquetGoTestdata(t), "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for _, file := range files {
		name := filepath.Base(file)
		schema, err := sparquet.RecordSchema(file)
		if err != nil {
			continue // not readable as records
		}
		for _, writers := range []int{1, 2} {
			recs, cols := filepath.Join(t.TempDir(), "r"), filepath.Join(t.TempDir(), "c")
			if err := flow.From(sparquet.Read[sources.Record](file)).To(shards.Parquet[sources.Record](recs, columnsOpts(schema, writers)...)).Run(t.Context()); err != nil {
				break // records cannot write it either
			}
			err := flow.From(sparquet.Read[*sparquet.ColumnBatch](file)).To(shards.Parquet[*sparquet.ColumnBatch](cols, columnsOpts(schema, writers)...)).Run(t.Context())
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameFiles(t, name, recs, cols)
			same++
		}
	}
	if same < 80 {
		t.Fatalf("only %d outputs compared", same)
	}
}

// TestParquetBatchesSameAtAnyParallelism writes a dataset of several
// files, with nulls, lists, a Hive column and a row filter, as column
// batches at parallelism 1, 2 and 4 and as records: the same bytes each
// time.
func TestParquetBatchesSameAtAnyParallelism(t *testing.T) {
	type row struct {
		ID    int64    `parquet:"id"`
		Name  *string  `parquet:"name,optional"`
		Score float64  `parquet:"score"`
		Tags  []string `parquet:"tags,list"`
	}
	root := t.TempDir()
	for f := range 3 {
		rows := make([]row, 2000+f*333)
		for i := range rows {
			rows[i] = row{ID: int64(f*10000 + i), Score: float64(i) / 4}
			if i%7 != 0 {
				s := strings.Repeat("n", i%13)
				rows[i].Name = &s
			}
			rows[i].Tags = strings.Fields(strings.Repeat("t ", i%4))
		}
		dir := filepath.Join(root, "lang="+string(rune('a'+f)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := pq.WriteFile(filepath.Join(dir, "data.parquet"), rows, pq.MaxRowsPerRowGroup(900)); err != nil {
			t.Fatal(err)
		}
	}
	where := sparquet.RowFilter(sources.Or(sources.Lt("score", 300.0), sources.Gt("id", int64(12000))))
	schema, err := sparquet.RecordSchema(root, where)
	if err != nil {
		t.Fatal(err)
	}
	recs := filepath.Join(t.TempDir(), "r")
	if err := flow.From(sparquet.Read[sources.Record](root, where)).To(shards.Parquet[sources.Record](recs, columnsOpts(schema, 2)...)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	m, err := shards.ReadManifest(recs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1200 + 1200 + 332 + 2666); m.Rows != want { // score < 300 in each file, id > 12000 in the second and the third
		t.Fatalf("records wrote %d rows, want %d", m.Rows, want)
	}
	for _, par := range []int{1, 2, 4} {
		cols := filepath.Join(t.TempDir(), "c")
		err := flow.From(sparquet.Read[*sparquet.ColumnBatch](root, where)).Parallel(par).To(shards.Parquet[*sparquet.ColumnBatch](cols, columnsOpts(schema, 2)...)).Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "parallel "+string(rune('0'+par)), recs, cols)
	}
}

// TestParquetBatchesRefuses checks the errors of batches that do not fit
// the schema, and of the options the sink does not take.
func TestParquetBatchesRefuses(t *testing.T) {
	type in struct {
		ID   int64   `parquet:"id"`
		Name *string `parquet:"name,optional"`
	}
	file := filepath.Join(t.TempDir(), "in.parquet")
	if err := pq.WriteFile(file, []in{{ID: 1}, {ID: 2}}); err != nil {
		t.Fatal(err)
	}
	type wrongType struct {
		ID   int32   `parquet:"id"`
		Name *string `parquet:"name,optional"`
	}
	type requiredName struct {
		ID   int64  `parquet:"id"`
		Name string `parquet:"name"`
	}
	type fewer struct {
		ID int64 `parquet:"id"`
	}
	type required struct {
		ID   int64   `parquet:"id"`
		Name *string `parquet:"name,optional"`
		More string  `parquet:"more"`
	}
	for _, c := range []struct {
		schema *pq.Schema
		opts   []shards.ParquetOption
		want   string
	}{
		{pq.SchemaOf(wrongType{}), nil, `in.parquet row group 0: column "id": the batch's values are INT64, the schema's INT32`},
		{pq.SchemaOf(requiredName{}), nil, `(in.parquet, row 0): shards: Parquet[*parquet.ColumnBatch]`},
		{pq.SchemaOf(requiredName{}), nil, `part-00000-00000.parquet: column "name": null in a required column`},
		{pq.SchemaOf(fewer{}), nil, `in.parquet row group 0: the batch's column "name" is not in the schema`},
		{pq.SchemaOf(required{}), nil, `in.parquet row group 0: column "more" is required, and the batch has no value for it`},
		{pq.SchemaOf(in{}), []shards.ParquetOption{shards.PartitionBy("name")}, "PartitionBy and Continue are not supported"},
		{pq.SchemaOf(in{}), []shards.ParquetOption{shards.Continue()}, "PartitionBy and Continue are not supported"},
		{nil, nil, "nil schema"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		err := flow.From(sparquet.Read[*sparquet.ColumnBatch](file)).To(shards.Parquet[*sparquet.ColumnBatch](out, append([]shards.ParquetOption{shards.Schema(c.schema)}, c.opts...)...)).Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("got %v, want an error with %q", err, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, shards.ManifestName(0))); err == nil {
			t.Fatalf("%q: the failed run committed", c.want)
		}
	}
}

// TestParquetBatchesFromCSV writes CSV files, Hive-partitioned, once as
// records (text.CSV[sources.Record], Parquet[sources.Record]) and once as
// column batches (text.CSV[*parquet.ColumnBatch],
// Parquet[*parquet.ColumnBatch]), with a schema of every kind of
// conversion from text: integers, floats, booleans, strings, bytes,
// decimals, timestamps, lists as JSON arrays, nulls and empty fields. The
// files are the same bytes at every chunk size, parallelism and writer
// count, and a field that does not parse fails both runs naming the same
// row and column.
func TestParquetBatchesFromCSV(t *testing.T) {
	root := t.TempDir()
	for f, lang := range []string{"en", "de"} {
		var b strings.Builder
		b.WriteString("id,small,score,name,ok,f32,ts,price,tags,blob\n")
		for i := range 1500 + f*700 {
			small, name, tags := fmt.Sprint(i%1000), fmt.Sprint("n", i%37), fmt.Sprintf("[%d,%d]", i, i%5)
			switch i % 6 {
			case 1:
				small, name, tags = "", "", "[]"
			case 2:
				name, tags = "NA", ""
			}
			fmt.Fprintf(&b, "%d,%s,%d.25,%s,%v,%d.5,2024-01-0%dT10:00:00Z,%d.%02d,\"%s\",b%d\n",
				f*10000+i, small, i, name, i%3 == 0, i%100, 1+i%9, i, i%100, tags, i%7)
		}
		dir := filepath.Join(root, "lang="+lang)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "data.csv"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema := pq.NewSchema("csv", textGroup())
	for _, v := range []struct {
		null          string
		chunk, par, w int
	}{{"", 1024, 1, 1}, {"NA", 1024, 2, 2}, {"", 333, 4, 2}, {"NA", 50, 1, 1}} {
		topts := []text.CSVOption{text.NullString(v.null), sources.ChunkSize(v.chunk), text.PartitionBytes(20000)}
		recs, cols := filepath.Join(t.TempDir(), "r"), filepath.Join(t.TempDir(), "c")
		if err := flow.From(text.CSV[sources.Record](root, topts...)).Parallel(v.par).To(shards.Parquet[sources.Record](recs, columnsOpts(schema, v.w)...)).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := flow.From(text.CSV[*sparquet.ColumnBatch](root, topts...)).Parallel(v.par).To(shards.Parquet[*sparquet.ColumnBatch](cols, columnsOpts(schema, v.w)...)).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, fmt.Sprintf("%+v", v), recs, cols)
	}

	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("id,small\n1,2\n2,x3\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	small := pq.NewSchema("csv", pq.Group{"id": pq.Int(64), "small": pq.Optional(pq.Int(32))})
	errRecs := flow.From(text.CSV[sources.Record](bad)).To(shards.Parquet[sources.Record](filepath.Join(t.TempDir(), "r"), shards.Schema(small))).Run(t.Context())
	errCols := flow.From(text.CSV[*sparquet.ColumnBatch](bad)).To(shards.Parquet[*sparquet.ColumnBatch](filepath.Join(t.TempDir(), "c"), shards.Schema(small))).Run(t.Context())
	// The same row, file and message; only the sinks' names differ.
	where := func(err error) (string, string) {
		if err == nil {
			return "", ""
		}
		row, _, _ := strings.Cut(err.Error(), ": shards: ")
		_, msg, _ := strings.Cut(err.Error(), "part-00000-00000.parquet: ")
		return row, msg
	}
	rowR, msgR := where(errRecs)
	rowC, msgC := where(errCols)
	if rowC == "" || rowC != rowR || msgC != msgR || !strings.Contains(rowC, "(bad.csv, byte 13)") || !strings.HasPrefix(msgC, `column "small": cannot write string "x3"`) {
		t.Fatalf("records: %v\ncolumns: %v", errRecs, errCols)
	}
}

// textGroup returns the columns that the comparisons of text sources'
// batches with their records write: a column of every kind of
// conversion from text and JSON, and the Hive column lang.
func textGroup() pq.Group {
	return pq.Group{
		"id":    pq.Int(64),
		"small": pq.Optional(pq.Int(32)),
		"score": pq.Optional(pq.Leaf(pq.DoubleType)),
		"name":  pq.Optional(pq.String()),
		"ok":    pq.Optional(pq.Leaf(pq.BooleanType)),
		"f32":   pq.Optional(pq.Leaf(pq.FloatType)),
		"ts":    pq.Optional(pq.Timestamp(pq.Millisecond)),
		"price": pq.Optional(pq.Decimal(2, 9, pq.Int32Type)),
		"tags":  pq.Optional(pq.List(pq.Optional(pq.Int(32)))),
		"blob":  pq.Optional(pq.Leaf(pq.ByteArrayType)),
		"lang":  pq.Optional(pq.String()),
	}
}

// TestParquetBatchesRowGroupsByBytes: with row groups ended by the bytes
// of their byte arrays, batches end them after the same row as records,
// whatever the chunks (the batches are whole fragments of long strings
// and lists).
func TestParquetBatchesRowGroupsByBytes(t *testing.T) {
	defer shards.SetRecordGroupBytes(20 << 10)()
	type row struct {
		ID   int64    `parquet:"id"`
		Text string   `parquet:"text"`
		Tags []string `parquet:"tags,list"`
	}
	rows := make([]row, 3000)
	for i := range rows {
		rows[i] = row{ID: int64(i), Text: strings.Repeat("x", i%97), Tags: strings.Fields(strings.Repeat("tag ", i%5))}
	}
	file := filepath.Join(t.TempDir(), "in.parquet")
	if err := pq.WriteFile(file, rows, pq.MaxRowsPerRowGroup(2000)); err != nil {
		t.Fatal(err)
	}
	schema, err := sparquet.RecordSchema(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := []shards.ParquetOption{shards.Schema(schema), shards.RowIDColumn("rid")}
	recs, cols := filepath.Join(t.TempDir(), "r"), filepath.Join(t.TempDir(), "c")
	if err := flow.From(sparquet.Read[sources.Record](file)).To(shards.Parquet[sources.Record](recs, opts...)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := flow.From(sparquet.Read[*sparquet.ColumnBatch](file)).To(shards.Parquet[*sparquet.ColumnBatch](cols, opts...)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "row groups by bytes", recs, cols)
	f, err := pq.OpenFile(bytes.NewReader(readTree(t, cols)["part-00000-00000.parquet"]), int64(len(readTree(t, cols)["part-00000-00000.parquet"])))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.RowGroups()); n < 5 {
		t.Fatalf("%d row groups: the bytes did not end any", n)
	}
}

// TestParquetBatchesHiveValues: Hive values are converted to their
// column's type as records convert them, a null one (the default
// partition) is null and an empty one is "", and a Hive column that the
// schema does not have fails the run, as do unsigned values for a
// signed column.
func TestParquetBatchesHiveValues(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"year=2024/k=a", "year=2025/k=__HIVE_DEFAULT_PARTITION__", "year=2026/k="} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, "d.csv"), []byte("id,n\n1,2\n3,4\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema := pq.NewSchema("csv", pq.Group{"id": pq.Int(64), "n": pq.Optional(pq.Uint(32)),
		"year": pq.Optional(pq.Int(64)), "k": pq.Optional(pq.String())})
	recs, cols := filepath.Join(t.TempDir(), "r"), filepath.Join(t.TempDir(), "c")
	if err := flow.From(text.CSV[sources.Record](root)).To(shards.Parquet[sources.Record](recs, columnsOpts(schema, 1)...)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := flow.From(text.CSV[*sparquet.ColumnBatch](root)).To(shards.Parquet[*sparquet.ColumnBatch](cols, columnsOpts(schema, 1)...)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "hive", recs, cols)
	var got []sources.Record
	if err := flow.From(sparquet.Read[sources.Record](cols)).To(sinks.CollectValues(&got)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{"2024 a", "2024 a", "2025 <nil>", "2025 <nil>", "2026 ", "2026 "}
	for i, r := range got {
		year, _ := r.Get("year")
		k, _ := r.Get("k")
		if s := fmt.Sprint(year, " ", k); i >= len(want) || s != want[i] {
			t.Fatalf("row %d: %s, want %q", i, s, want)
		}
	}

	narrow := pq.NewSchema("csv", pq.Group{"id": pq.Int(64), "n": pq.Optional(pq.Int(32)), "k": pq.Optional(pq.String())})
	err := flow.From(text.CSV[*sparquet.ColumnBatch](root)).To(shards.Parquet[*sparquet.ColumnBatch](filepath.Join(t.TempDir(), "o"), shards.Schema(narrow))).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), `year=2024/k=a/d.csv: the batch's Hive column "year" is not in the schema`) {
		t.Fatalf("a Hive column the schema lacks: %v", err)
	}
	unsigned := filepath.Join(t.TempDir(), "u.parquet")
	type u struct {
		N uint32 `parquet:"n"`
	}
	if err := pq.WriteFile(unsigned, []u{{4000000000}}); err != nil {
		t.Fatal(err)
	}
	err = flow.From(sparquet.Read[*sparquet.ColumnBatch](unsigned)).To(shards.Parquet[*sparquet.ColumnBatch](filepath.Join(t.TempDir(), "o"), shards.Schema(pq.NewSchema("s", pq.Group{"n": pq.Int(32)})))).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), `u.parquet row group 0: column "n": the batch's values are unsigned, the schema's signed`) {
		t.Fatalf("unsigned into signed: %v", err)
	}
}

// TestParquetBatchesFailsClean: a CSV field that does not parse, late in
// the stream, fails a run of two writers and two workers; the run leaves
// no goroutine and nothing in the output directory, and a run cancelled
// in its middle leaves nothing either.
func TestParquetBatchesFailsClean(t *testing.T) {
	testutil.CheckGoroutines(t)
	var b strings.Builder
	b.WriteString("id,n\n")
	for i := range 20000 {
		n := fmt.Sprint(i % 100)
		if i == 15000 {
			n = "many"
		}
		fmt.Fprintf(&b, "%d,%s\n", i, n)
	}
	in := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := pq.NewSchema("csv", pq.Group{"id": pq.Int(64), "n": pq.Optional(pq.Int(32))})
	out := filepath.Join(t.TempDir(), "out")
	src := text.CSV[*sparquet.ColumnBatch](in, text.PartitionBytes(8000))
	err := flow.From(src).Parallel(2).To(shards.Parquet[*sparquet.ColumnBatch](out, columnsOpts(schema, 2)...)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), `column "n": cannot write string "many"`) {
		t.Fatalf("Run: %v", err)
	}
	left := func() []string { // the output's files, none if the run removed the directory it made
		if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return listTree(t, out)
	}
	if got := left(); len(got) != 0 {
		t.Errorf("the failed run left %q", got)
	}

	ctx, cancel := context.WithCancel(t.Context())
	seen := 0
	stop := operators.Map(func(b *sparquet.ColumnBatch) (*sparquet.ColumnBatch, error) {
		if seen++; seen == 10 {
			cancel()
		}
		return b, nil
	})
	err = flow.From(text.CSV[*sparquet.ColumnBatch](in, text.PartitionBytes(8000))).Via(stop).To(shards.Parquet[*sparquet.ColumnBatch](out, columnsOpts(schema, 2)...)).Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if got := left(); len(got) != 0 {
		t.Errorf("the cancelled run left %q", got)
	}
}
