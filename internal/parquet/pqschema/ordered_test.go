package pqschema

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestOrderKeptAndRowsRoundTrip(t *testing.T) {
	s := New("r",
		Column{"z", parquet.Optional(parquet.String())},
		Column{"a", parquet.Optional(parquet.Int(64))},
		Column{"l", parquet.Optional(parquet.List(parquet.Optional(parquet.Int(32))))},
	)
	var names []string
	for _, c := range Columns(s) {
		names = append(names, c.Name)
	}
	if want := []string{"z", "a", "l"}; !slices.Equal(names, want) {
		t.Fatalf("columns %v, want %v", names, want)
	}
	rows := []any{
		map[string]any{"z": "x", "a": int64(1), "l": []any{int32(1), nil, int32(3)}},
		map[string]any{"z": nil, "a": nil, "l": nil},
		map[string]any{"a": int64(-5)}, // missing columns are null
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[any](&buf, s)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var fileCols []string
	for _, c := range f.Schema().Fields() {
		fileCols = append(fileCols, c.Name())
	}
	if want := []string{"z", "a", "l"}; !slices.Equal(fileCols, want) {
		t.Fatalf("file columns %v, want %v", fileCols, want)
	}
	got := make([]parquet.Row, 3)
	n, _ := f.RowGroups()[0].Rows().ReadRows(got)
	if n != 3 {
		t.Fatalf("read %d rows, want 3", n)
	}
	want := [][]any{
		{"x", int64(1), int32(1), nil, int32(3)},
		{nil, nil, nil},
		{nil, int64(-5), nil},
	}
	for i, row := range got[:n] {
		var vals []any
		for _, v := range row {
			if v.IsNull() {
				vals = append(vals, nil)
				continue
			}
			switch v.Kind() {
			case parquet.ByteArray:
				vals = append(vals, string(v.ByteArray()))
			case parquet.Int64:
				vals = append(vals, v.Int64())
			case parquet.Int32:
				vals = append(vals, v.Int32())
			}
		}
		if !reflect.DeepEqual(vals, want[i]) {
			t.Errorf("row %d: %v, want %v", i, vals, want[i])
		}
	}
}
