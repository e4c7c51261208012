package text_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// modelRow is what each value model says of one record: its ID, its id
// column (as text) and its Hive column lang.
type modelRow struct {
	id   rowid.ID
	key  string
	lang string
}

// TestValueModelsAgree reads one dataset of each format as structs,
// records and column batches, split into several partitions read in
// parallel: the three give the same rows, with the same IDs, in the same
// order.
func TestValueModelsAgree(t *testing.T) {
	dir := t.TempDir()
	lines := lineValues(400)
	for i, lang := range []string{"en", "fr"} {
		part := lines[i*200 : (i+1)*200]
		writeCSV(t, filepath.Join(dir, "csv", "lang="+lang, "a.csv"), part)
		writeJSONL(t, filepath.Join(dir, "jsonl", "lang="+lang, "a.jsonl"), part)
	}
	csvOpts := []text.CSVOption{text.PartitionBytes(2000), sources.ChunkSize(16)}
	jsonlOpts := []text.JSONLOption{text.PartitionBytes(2000), sources.ChunkSize(16)}
	for _, c := range []struct {
		format  string
		structs flow.Source[Line]
		recs    flow.Source[sources.Record]
		batches flow.Source[*parquet.ColumnBatch]
	}{
		{"csv", text.CSV[Line](filepath.Join(dir, "csv"), csvOpts...), text.CSV[sources.Record](filepath.Join(dir, "csv"), csvOpts...),
			text.CSV[*parquet.ColumnBatch](filepath.Join(dir, "csv"), csvOpts...)},
		{"jsonl", text.JSONL[Line](filepath.Join(dir, "jsonl"), jsonlOpts...), text.JSONL[sources.Record](filepath.Join(dir, "jsonl"), jsonlOpts...),
			text.JSONL[*parquet.ColumnBatch](filepath.Join(dir, "jsonl"), jsonlOpts...)},
	} {
		var fromStructs, fromRecs, fromBatches []modelRow
		for _, it := range testutil.Items[Line](t, flow.From(c.structs).Parallel(2)) {
			fromStructs = append(fromStructs, modelRow{it.ID, fmt.Sprint(it.Value.ID), it.Value.Lang})
		}
		for _, it := range testutil.Items[sources.Record](t, flow.From(c.recs).Parallel(2)) {
			key, _ := it.Value.Get("id")
			lang, _ := it.Value.Get("lang")
			fromRecs = append(fromRecs, modelRow{it.ID, fmt.Sprint(key), fmt.Sprint(lang)})
		}
		for _, it := range testutil.Items[*parquet.ColumnBatch](t, flow.From(c.batches).Parallel(2)) {
			b := it.Value
			col := b.Column("id")
			for i := range b.NumRows {
				key := string(col.Bytes[col.Offsets[i]:col.Offsets[i+1]]) // id is never null
				fromBatches = append(fromBatches, modelRow{b.RowID(i), key, b.Partition["lang"]})
			}
			b.Release()
		}
		if len(fromStructs) != len(lines) {
			t.Fatalf("%s: %d structs, want %d", c.format, len(fromStructs), len(lines))
		}
		if !slices.Equal(fromRecs, fromStructs) || !slices.Equal(fromBatches, fromStructs) {
			t.Fatalf("%s: structs, records and batches disagree:\n%v\n%v\n%v", c.format, fromStructs[:3], fromRecs[:min(3, len(fromRecs))], fromBatches[:min(3, len(fromBatches))])
		}
	}
}

// recordLike has the fields of sources.Record, and recordOf is
// sources.Record's struct as a type of its own: CSV and JSONL read both
// as structs, whose fields read the columns or keys Names and Values.
type recordLike struct {
	Names  []string
	Values []any
}

type recordOf sources.Record

func TestStructLikeRecordIsAStruct(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.jsonl"), []byte(`{"Names":["x"],"Values":[1]}`+"\n"))
	writeFile(t, filepath.Join(dir, "a.csv"), []byte("Names,Values\nx,1\n"))
	like, err := readValues(t, text.JSONL[recordLike](dir))
	if err != nil || len(like) != 1 || fmt.Sprint(like[0].Names, like[0].Values) != "[x] [1]" {
		t.Fatalf("JSONL[recordLike]: %+v, %v", like, err)
	}
	of, err := readValues(t, text.JSONL[recordOf](dir))
	if err != nil || len(of) != 1 || fmt.Sprint(of[0].Names, of[0].Values) != "[x] [1]" {
		t.Fatalf("JSONL[recordOf]: %+v, %v", of, err)
	}
	recs, err := readValues(t, text.JSONL[sources.Record](dir))
	if err != nil || len(recs) != 1 || fmt.Sprint(recs[0].Names, recs[0].Values) != "[Names Values] [[x] [1]]" {
		t.Fatalf("JSONL[sources.Record]: %+v, %v", recs, err)
	}
	// CSV's struct fields do not take slices: the struct is refused.
	_, errLike := readErr(t, text.CSV[recordLike](dir))
	_, errOf := readErr(t, text.CSV[recordOf](dir))
	for _, err := range []error{errLike, errOf} {
		if err == nil || !strings.Contains(err.Error(), "field Names of") {
			t.Fatalf("CSV of a struct with a []string field: %v", err)
		}
	}
	crecs, err := readValues(t, text.CSV[sources.Record](dir))
	if err != nil || len(crecs) != 1 || fmt.Sprint(crecs[0].Names, crecs[0].Values) != "[Names Values] [x 1]" {
		t.Fatalf("CSV[sources.Record]: %+v, %v", crecs, err)
	}
}
