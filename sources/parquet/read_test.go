package parquet_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Row has the column kinds the source must decode.
type Row struct {
	ID    int64   `parquet:"id"`
	Small int32   `parquet:"small"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
	Tags  []int32 `parquet:"tags,list"`
	Opt   *int64  `parquet:"opt,optional"`
	Label string  `parquet:"label,optional"`
}

func makeRows(file, n int) []Row {
	rows := make([]Row, n)
	for i := range rows {
		id := int64(file*100000 + i)
		r := Row{ID: id, Small: int32(i % 1000), Score: float64(id) / 7,
			Text: fmt.Sprintf("row %08d of file %03d, padded to forty b", i, file)}
		for k := range i % 17 {
			r.Tags = append(r.Tags, int32(i*k))
		}
		if i%3 != 0 {
			v := id * 2
			r.Opt = &v
		}
		if i%5 != 0 {
			r.Label = fmt.Sprintf("l%d", i%11)
		}
		rows[i] = r
	}
	return rows
}

// hiveDataset writes files under lang=…/day=… directories, several row
// groups each, and returns the root and each file's rows by relative path.
func hiveDataset(t *testing.T) (string, map[string][]Row) {
	root := t.TempDir()
	files := map[string][]Row{}
	k := 0
	for _, lang := range []string{"de", "en", "fr"} {
		for day := range 3 {
			rel := fmt.Sprintf("lang=%s/day=%d/part-%d.parquet", lang, day, k)
			rows := makeRows(k, 300+97*k)
			testutil.WriteParquet(t, filepath.Join(root, rel), rows, 128)
			files[rel] = rows
			k++
		}
	}
	return root, files
}

func TestParquetReadsWhatTheGenericReaderReads(t *testing.T) {
	testutil.CheckGoroutines(t)
	root, files := hiveDataset(t)
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	var want []flow.Item[Row]
	for _, rel := range rels {
		ref := testutil.ReadParquet[Row](t, filepath.Join(root, rel))
		if !reflect.DeepEqual(normalize(ref), normalize(files[rel])) {
			t.Fatalf("%s: the generic reader does not read back what was written", rel)
		}
		for i, r := range ref {
			want = append(want, flow.Item[Row]{ID: rowid.Ordinal(uint64(i)).Combine(rowid.FromString(rel)), Value: r})
		}
	}
	for _, n := range []int{1, 2, 4} {
		got := testutil.Items[Row](t, flow.From(parquet.Read[Row](root, parquet.MaxRows(50), sources.ChunkSize(32))).Parallel(n))
		if len(got) != len(want) {
			t.Fatalf("parallelism %d: %d rows, want %d", n, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || !reflect.DeepEqual(normalizeRow(got[i].Value), normalizeRow(want[i].Value)) {
				t.Fatalf("parallelism %d: row %d = %+v (ID %v), want %+v (ID %v)", n, i, got[i].Value, got[i].ID, want[i].Value, want[i].ID)
			}
			if i > 0 && got[i].Part < got[i-1].Part {
				t.Fatalf("parallelism %d: batch decreases at row %d", n, i)
			}
		}
	}
}

// normalize makes empty and nil slices compare equal.
func normalize(rows []Row) []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = normalizeRow(r)
	}
	return out
}

func normalizeRow(r Row) Row {
	if len(r.Tags) == 0 {
		r.Tags = nil
	}
	return r
}

// Hive is Row with the partition columns.
type Hive struct {
	ID   int64  `parquet:"id"`
	Lang string `parquet:"lang"`
	Day  int    `parquet:"day"`
}

func TestParquetHiveColumnsAndWhere(t *testing.T) {
	root, files := hiveDataset(t)
	got := testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root,
		sources.Where(sources.And(sources.In("lang", "en", "fr"), sources.Ge("day", 1))))).Parallel(2))
	want := 0
	for rel, rows := range files {
		if !strings.HasPrefix(rel, "lang=de") && !strings.Contains(rel, "day=0") {
			want += len(rows)
		}
	}
	if len(got) != want {
		t.Fatalf("%d rows, want %d", len(got), want)
	}
	for _, it := range got {
		file := int(it.Value.ID / 100000)
		if wantLang := []string{"de", "en", "fr"}[file/3]; it.Value.Lang != wantLang || it.Value.Day != file%3 {
			t.Fatalf("row %d: lang %q day %d, want %q %d", it.Value.ID, it.Value.Lang, it.Value.Day, wantLang, file%3)
		}
	}
}

// Projected reads two columns, one renamed, and the trace columns.
type Projected struct {
	Key     int64  `parquet:"key"`
	Text    string `parquet:"text"`
	Score   float64
	File    string `parquet:"__file"`
	Group   int    `parquet:"__row_group"`
	RowIdx  int64  `parquet:"__row_index"`
	private int
}

func TestParquetProjectionRenameTrace(t *testing.T) {
	root, files := hiveDataset(t)
	got := testutil.Items[Projected](t, flow.From(parquet.Read[Projected](root,
		parquet.Rename("id", "key"), parquet.Columns("key", "text", "__file", "__row_group", "__row_index"),
		parquet.Trace())).Parallel(3))
	seen := 0
	for _, it := range got {
		rows := files[it.Value.File]
		r := rows[it.Value.RowIdx]
		if it.Value.Key != r.ID || it.Value.Text != r.Text || it.Value.Score != 0 || it.Value.private != 0 || it.Value.Group != int(it.Value.RowIdx/128) {
			t.Fatalf("row %+v does not match file %s row %d: %+v", it.Value, it.Value.File, it.Value.RowIdx, r)
		}
		seen++
	}
	total := 0
	for _, rows := range files {
		total += len(rows)
	}
	if seen != total {
		t.Fatalf("%d rows, want %d", seen, total)
	}
}

func TestParquetShardsCoverTheDataset(t *testing.T) {
	root, _ := hiveDataset(t)
	all := testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root, parquet.MaxRows(100))))
	for world := 1; world <= 4; world++ {
		var union []flow.Item[Hive]
		for rank := range world {
			union = append(union, testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root,
				parquet.MaxRows(100))).Parallel(2).WithRank(rank, world))...)
		}
		slices.SortStableFunc(union, func(a, b flow.Item[Hive]) int { return int(a.Part - b.Part) })
		if !testutil.SameRows(union, all) {
			t.Fatalf("world %d: the union over ranks (%d rows) is not the dataset (%d rows)", world, len(union), len(all))
		}
	}
}

func TestParquetShuffleIsSeededPerEpoch(t *testing.T) {
	root, _ := hiveDataset(t)
	build := func(seed uint64, n int) *flow.Pipeline {
		return flow.From(parquet.Read[Hive](root, parquet.MaxRows(64), sources.ShuffleWindow(5))).
			Epochs(2).WithSeed(seed).Parallel(n)
	}
	ref := testutil.Items[Hive](t, build(7, 1))
	for _, n := range []int{1, 2, 4} {
		if got := testutil.Items[Hive](t, build(7, n)); !slices.Equal(got, ref) {
			t.Fatalf("parallelism %d: the shuffled order differs from the serial one", n)
		}
	}
	half := len(ref) / 2
	e0, e1 := ref[:half], ref[half:]
	if slices.EqualFunc(e0, e1, func(a, b flow.Item[Hive]) bool { return a.ID == b.ID }) {
		t.Fatal("two epochs have the same order")
	}
	ids := func(items []flow.Item[Hive]) []rowid.ID {
		var out []rowid.ID
		for _, it := range items {
			out = append(out, it.ID)
		}
		slices.SortFunc(out, rowid.ID.Compare)
		return out
	}
	if !slices.Equal(ids(e0), ids(e1)) {
		t.Fatal("the epochs do not hold the same rows")
	}
	if other := testutil.Items[Hive](t, build(8, 1)); slices.Equal(other, ref) {
		t.Fatal("different seeds give the same order")
	}
}

// OnlyID reads one column.
type OnlyID struct {
	ID int64 `parquet:"id"`
}

func TestParquetManyFilesReopen(t *testing.T) {
	testutil.CheckGoroutines(t)
	root := t.TempDir()
	want := map[int64]bool{}
	for f := range 70 {
		rows := makeRows(f, 40)
		testutil.WriteParquet(t, filepath.Join(root, fmt.Sprintf("f%03d.parquet", f)), rows, 20)
		for _, r := range rows {
			want[r.ID] = true
		}
	}
	// A global shuffle visits the files' row groups in random order, so
	// files closed to stay under the open-file bound are opened again.
	build := func(n int) *flow.Pipeline {
		return flow.From(parquet.Read[OnlyID](root, sources.ShuffleWindow(-1))).WithSeed(3).Parallel(n)
	}
	ref := testutil.Items[OnlyID](t, build(1))
	if len(ref) != len(want) {
		t.Fatalf("%d rows, want %d", len(ref), len(want))
	}
	for _, it := range ref {
		if !want[it.Value.ID] {
			t.Fatalf("unexpected row %d", it.Value.ID)
		}
	}
	if got := testutil.Items[OnlyID](t, build(3)); !slices.Equal(got, ref) {
		t.Fatal("parallel read differs from the serial one")
	}
}

func TestParquetColumnBatchRelease(t *testing.T) {
	root, files := hiveDataset(t)
	total := 0
	for _, rows := range files {
		total += len(rows)
	}
	for range 2 {
		seen := 0
		for b, err := range flow.Values[*parquet.ColumnBatch](context.Background(),
			flow.From(parquet.Read[*parquet.ColumnBatch](root, parquet.Columns("id", "text"), parquet.MaxRows(100))).Parallel(2)) {
			if err != nil {
				t.Fatal(err)
			}
			ids, text := b.Column("id"), b.Column("text")
			if ids == nil || text == nil || len(ids.Int64) != b.NumRows || text.Len() != b.NumRows {
				t.Fatalf("batch %+v lacks its columns", b)
			}
			for i, id := range ids.Int64 {
				r := files[b.File][b.FirstRow+int64(i)]
				if id != r.ID || string(text.Bytes[text.Offsets[i]:text.Offsets[i+1]]) != r.Text {
					t.Fatalf("%s row %d: id %d, want %d", b.File, b.FirstRow+int64(i), id, r.ID)
				}
			}
			seen += b.NumRows
			b.Release()
		}
		if seen != total {
			t.Fatalf("%d rows, want %d", seen, total)
		}
	}
}

// TestRangesReadAsWholeRowGroups reads the same files with row groups cut
// into ranges (MaxRows(50): ranges of a third of a row group, whose
// column chunks are one page each, so that the ranges share each page)
// and whole, as records and as column batches, at parallelism 1, 2 and
// 4: the same rows, IDs and values, in the same order.
func TestRangesReadAsWholeRowGroups(t *testing.T) {
	testutil.CheckGoroutines(t)
	root, _ := hiveDataset(t)
	records := func(n int, opts ...parquet.Option) []string {
		var out []string
		for _, it := range testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(n)) {
			b, err := it.Value.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, it.ID.String()+" "+string(b))
		}
		return out
	}
	// A batch's columns, flattened per file and column: its values (byte
	// arrays one by one) and levels, and its row IDs, in order.
	batches := func(n int, opts ...parquet.Option) map[string][]string {
		out := map[string][]string{}
		for _, it := range testutil.Items[*parquet.ColumnBatch](t, flow.From(parquet.Read[*parquet.ColumnBatch](root, opts...)).Parallel(n)) {
			b := it.Value
			for i := range b.NumRows {
				out[b.File] = append(out[b.File], b.RowID(i).String())
			}
			for _, c := range b.Columns {
				k := b.File + " " + c.Name
				for _, v := range c.Int32 {
					out[k] = append(out[k], fmt.Sprint(v))
				}
				for _, v := range c.Int64 {
					out[k] = append(out[k], fmt.Sprint(v))
				}
				for _, v := range c.Double {
					out[k] = append(out[k], fmt.Sprint(v))
				}
				for i := 0; i+1 < len(c.Offsets); i++ {
					out[k] = append(out[k], string(c.Bytes[c.Offsets[i]:c.Offsets[i+1]]))
				}
				for _, l := range c.DefLevels {
					out[k+" def"] = append(out[k+" def"], fmt.Sprint(l))
				}
				for _, l := range c.RepLevels {
					out[k+" rep"] = append(out[k+" rep"], fmt.Sprint(l))
				}
			}
		}
		return out
	}
	wantRecords, wantBatches := records(1, parquet.MaxRows(1<<20)), batches(1, parquet.MaxRows(1<<20))
	if len(wantRecords) < 1000 {
		t.Fatalf("%d rows", len(wantRecords))
	}
	for _, n := range []int{1, 2, 4} {
		if got := records(n, parquet.MaxRows(50)); !slices.Equal(got, wantRecords) {
			t.Fatalf("records at parallelism %d differ from whole row groups' (%d rows against %d)", n, len(got), len(wantRecords))
		}
		if got := batches(n, parquet.MaxRows(50)); !reflect.DeepEqual(got, wantBatches) {
			t.Fatalf("column batches at parallelism %d differ from whole row groups'", n)
		}
	}
}

// TestReadValueModelsAgree reads one dataset as structs, records and
// column batches: the three give the same rows, with the same IDs, in the
// same order.
func TestReadValueModelsAgree(t *testing.T) {
	root, _ := hiveDataset(t)
	opts := []parquet.Option{parquet.MaxRows(50), sources.Where(sources.Ne("lang", "de"))}
	structs := testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root, opts...)).Parallel(2))
	recs := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(2))
	batches := testutil.Items[*parquet.ColumnBatch](t, flow.From(parquet.Read[*parquet.ColumnBatch](root, opts...)).Parallel(2))
	if len(structs) == 0 || len(recs) != len(structs) {
		t.Fatalf("%d structs, %d records", len(structs), len(recs))
	}
	type row struct {
		id   rowid.ID
		key  int64
		lang string
	}
	var fromStructs, fromRecs, fromBatches []row
	for _, it := range structs {
		fromStructs = append(fromStructs, row{it.ID, it.Value.ID, it.Value.Lang})
	}
	for _, it := range recs {
		id, _ := it.Value.Get("id")
		lang, _ := it.Value.Get("lang")
		fromRecs = append(fromRecs, row{it.ID, id.(int64), lang.(string)})
	}
	for _, it := range batches {
		b := it.Value
		if it.ID != b.RowID(0) {
			t.Fatalf("batch item ID %v, its first row's %v", it.ID, b.RowID(0))
		}
		for i, key := range b.Column("id").Int64 {
			fromBatches = append(fromBatches, row{b.RowID(i), key, b.Partition["lang"]})
		}
		b.Release()
	}
	if !slices.Equal(fromRecs, fromStructs) || !slices.Equal(fromBatches, fromStructs) {
		t.Fatalf("structs, records and batches disagree:\n%v\n%v\n%v", fromStructs[:3], fromRecs[:3], fromBatches[:min(3, len(fromBatches))])
	}
}

// recordLike has the fields of sources.Record, and recordOf is
// sources.Record's struct as a type of its own: Read reads both as
// structs, whose fields read columns named Names and Values.
type recordLike struct {
	Names  []string
	Values []any
}

type recordOf sources.Record

func TestReadStructLikeRecordIsAStruct(t *testing.T) {
	root, _ := hiveDataset(t)
	checkReadAsStruct[recordLike](t, root)
	checkReadAsStruct[recordOf](t, root)
	// sources.Record itself is the records model.
	if s := parquet.Read[sources.Record](root).Info().Settings; !strings.Contains(s, "format=parquet.recordsFormat ") {
		t.Fatalf("Read[sources.Record] settings %s", s)
	}
}

func checkReadAsStruct[T any](t *testing.T, root string) {
	t.Helper()
	src := parquet.Read[T](root)
	if s := src.Info().Settings; !strings.Contains(s, "format=parquet.structFormat[") {
		t.Fatalf("Read[%T] is not read as structs: settings %s", *new(T), s)
	}
	err := flow.From(src).To(sinks.Count[T](new(int64))).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), `no column "Names" for field Names`) {
		t.Fatalf("Read[%T] of a dataset without a column Names: %v", *new(T), err)
	}
}
