package text_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// TestJSONLBatchesHoldRecords reads JSON Lines files, with keys in
// varying order, keys missing and new, nulls, escapes, numbers, booleans,
// nested values, lines the fast scan leaves to encoding/json and a Hive
// column, as column batches and as records, at several chunk sizes and
// parallelisms: row for row the same IDs and values (a string's text, a
// number's, true or false, a nested value's JSON), nulls where a record
// has none, and batches of at most a chunk, also where a batch reuses
// the buffers of one released before it.
func TestJSONLBatchesHoldRecords(t *testing.T) {
	root := t.TempDir()
	for f, part := range []string{"k=a", "k=__HIVE_DEFAULT_PARTITION__"} {
		var b strings.Builder
		for i := range 900 + f*400 {
			m := []string{fmt.Sprintf(`"id":%d`, i), fmt.Sprintf(`"name":"n\t%d \u00e9"`, i%17)}
			switch i % 6 {
			case 1:
				m = append(m, `"note":null`, `"x":1.5e3`)
			case 2:
				m = append([]string{`"ok":true`, `"l":[1,{"a":"b"}]`}, m...)
			case 3:
				m = append(m, `"\u006eote":"escaped key"`) // for encoding/json
			case 4:
				m = append(m, fmt.Sprintf(`"new%d":"only here"`, i))
			}
			fmt.Fprintf(&b, "{%s}\n", strings.Join(m, ","))
		}
		dir := filepath.Join(root, part)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "data.jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	released, reused := map[uintptr]bool{}, false // the batches' buffers, by their address
	for _, v := range []struct{ chunk, par int }{{1024, 1}, {100, 2}, {7, 4}} {
		opts := []text.JSONLOption{sources.ChunkSize(v.chunk), text.PartitionBytes(9000)}
		recs := readRecords(t, text.JSONL[sources.Record](root, opts...), v.par)
		if len(recs) != 2200 {
			t.Fatalf("%+v: %d records", v, len(recs))
		}
		if batchesHoldRecords(t, fmt.Sprintf("%+v", v), recs, text.JSONL[*parquet.ColumnBatch](root, opts...), v.par, v.chunk, 0, sameJSONValue, released) {
			reused = true
		}
	}
	if !reused {
		t.Fatal("no batch took the buffers of one released before it")
	}
}

// sameJSONValue reports whether s, a value's text in a batch, is the
// value v of a record: a string itself, a json.Number's text, true or
// false, or the JSON of an array or object.
func sameJSONValue(s string, v any) bool {
	switch v := v.(type) {
	case string:
		return s == v
	case json.Number:
		return s == string(v)
	case bool:
		return s == fmt.Sprint(v)
	}
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var got any
	return d.Decode(&got) == nil && reflect.DeepEqual(got, v)
}

// TestJSONLBatchBounds: lines of many keys that no other line
// has end batches before their rows times their columns pass 1,048,576
// fields, with every row kept; a line of more than 65,536 keys is an
// error naming the file and line.
func TestJSONLBatchBounds(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 400 {
		b.WriteString(`{"id":` + fmt.Sprint(i))
		for k := range 3000 {
			fmt.Fprintf(&b, `,"k%d_%d":1`, i, k)
		}
		b.WriteString("}\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "sparse.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, batches := 0, 0
	err := flow.From(text.JSONL[*parquet.ColumnBatch](dir)).To(sinks.ForEach(func(it flow.Item[*parquet.ColumnBatch]) error {
		if f := it.Value.NumRows * len(it.Value.Columns); f > 1<<20 {
			return fmt.Errorf("a batch of %d rows and %d columns", it.Value.NumRows, len(it.Value.Columns))
		}
		rows += it.Value.NumRows
		batches++
		return nil
	})).Run(t.Context())
	if err != nil || rows != 400 || batches < 20 {
		t.Fatalf("%d rows in %d batches: %v", rows, batches, err)
	}

	wide := filepath.Join(t.TempDir(), "wide.jsonl")
	b.Reset()
	b.WriteString("{}\n{")
	for k := range 1<<16 + 1 {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%d`, k, k)
	}
	b.WriteString("}\n")
	if err := os.WriteFile(wide, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var n int64
	err = flow.From(text.JSONL[*parquet.ColumnBatch](wide)).To(sinks.Count[*parquet.ColumnBatch](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "wide.jsonl:2 (byte 3): a line of more than 65536 keys") {
		t.Fatalf("65,537 keys: %v", err)
	}
}
