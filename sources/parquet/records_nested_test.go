package parquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// TestRecordsNestedTestingData reads the files of parquet-testing (which
// parquet-go ships in its testdata) with
// columns under several repeated fields and compares every leaf value of
// every row with lists rebuilt from the values parquet-go reads.
func TestRecordsNestedTestingData(t *testing.T) {
	for _, name := range []string{
		"nested_lists.snappy.parquet",
		"nested_maps.snappy.parquet",
		"nonnullable.impala.parquet",
		"nullable.impala.parquet",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(testutil.ParquetGoTestdata(t), name)
			want := expectedRecords(t, path)
			got := readRecords(t, path)
			compareRecords(t, got, want)
			deepest := 0
			for _, r := range want {
				for _, v := range r.Values {
					deepest = max(deepest, depth(v))
				}
			}
			if deepest < 2 {
				t.Errorf("no value nested two deep; deepest %d", deepest)
			}
		})
	}
}

// TestRecordsNestedGenerated writes [][]int32 and []*string columns with
// parquet-go and reads them back as records.
func TestRecordsNestedGenerated(t *testing.T) {
	type row struct {
		ID     int64      `parquet:"id"`
		Matrix [][]int32  `parquet:"matrix,list"`
		Names  []*string  `parquet:"names,list"`
		Deep   [][][]bool `parquet:"deep,list"`
	}
	s := func(v string) *string { return &v }
	rows := []row{
		{ID: 0},
		{ID: 1, Matrix: [][]int32{{1, 2}, {3}}, Names: []*string{s("a"), nil, s("")}},
		{ID: 2, Matrix: [][]int32{{}, {4}, nil}, Names: []*string{nil}},
		{ID: 3, Matrix: [][]int32{{5, 6, 7}}, Names: []*string{s("b")}, Deep: [][][]bool{{{true}, {}}, {{false, true}}}},
		{ID: 4, Matrix: [][]int32{}, Names: []*string{}, Deep: [][][]bool{{}, {nil, {false}}}},
	}
	for i := range 300 { // several pages and fragments
		rows = append(rows, row{ID: int64(5 + i), Matrix: [][]int32{make([]int32, i%4), {int32(i)}}, Names: []*string{s(fmt.Sprint(i))}})
	}
	path := filepath.Join(t.TempDir(), "nested.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := pq.NewGenericWriter[row](f, pq.PageBufferSize(256), pq.MaxRowsPerRowGroup(70))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	got := readRecords(t, path)
	if len(got) != len(rows) {
		t.Fatalf("%d records, want %d", len(got), len(rows))
	}
	for i, r := range rows {
		want := map[string]any{"id": r.ID}
		// The lists are required: one without elements reads as an empty
		// list, at every depth.
		var matrix []any
		for _, inner := range r.Matrix {
			var l []any
			for _, v := range inner {
				l = append(l, v)
			}
			matrix = append(matrix, orEmpty(l))
		}
		want["matrix.list.element.list.element"] = orEmpty(matrix)
		var names []any
		for _, n := range r.Names {
			if n == nil {
				names = append(names, nil)
			} else {
				names = append(names, *n)
			}
		}
		want["names.list.element"] = orEmpty(names)
		var deep []any
		for _, a := range r.Deep {
			var la []any
			for _, b := range a {
				var lb []any
				for _, v := range b {
					lb = append(lb, v)
				}
				la = append(la, orEmpty(lb))
			}
			deep = append(deep, orEmpty(la))
		}
		want["deep.list.element.list.element.list.element"] = orEmpty(deep)
		for name, w := range want {
			v, ok := got[i].Get(name)
			if !ok {
				t.Fatalf("row %d: no column %q in %v", i, name, got[i].Names)
			}
			if !reflect.DeepEqual(v, w) {
				t.Errorf("row %d: %s = %#v, want %#v", i, name, v, w)
			}
		}
	}
}

// depth returns how many lists deep x reaches.
func depth(x any) int {
	l, ok := x.([]any)
	if !ok {
		return 0
	}
	d := 0
	for _, e := range l {
		d = max(d, depth(e))
	}
	return d + 1
}

// orEmpty returns l, an empty list when nil. parquet-go's list tag
// writes required LISTs, in which a nil slice is an empty list.
func orEmpty(l []any) any {
	if l == nil {
		return []any{}
	}
	return l
}

func readRecords(t *testing.T, path string) []sources.Record {
	t.Helper()
	var recs []sources.Record
	if err := flow.From(parquet.Read[sources.Record](path)).To(sinks.CollectValues(&recs)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return recs
}

func compareRecords(t *testing.T, got, want []sources.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i].Names, want[i].Names) {
			t.Fatalf("row %d: names %v, want %v", i, got[i].Names, want[i].Names)
		}
		for j, name := range want[i].Names {
			if !reflect.DeepEqual(got[i].Values[j], want[i].Values[j]) {
				t.Errorf("row %d: %s = %#v, want %#v", i, name, got[i].Values[j], want[i].Values[j])
			}
		}
	}
}

// expectedRecords reads the file with parquet-go's row reader and rebuilds
// each leaf's value from the levels of its values.
func expectedRecords(t *testing.T, path string) []sources.Record {
	t.Helper()
	osf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer osf.Close()
	st, err := osf.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f, err := pq.OpenFile(osf, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var leaves []leafShape
	var walk func(c *pq.Column, def int, reps []int)
	walk = func(c *pq.Column, def int, reps []int) {
		if c != f.Root() {
			if c.Optional() || c.Repeated() {
				def++
			}
			if c.Repeated() {
				reps = append(append([]int(nil), reps...), def)
			}
		}
		if c.Leaf() {
			leaves = append(leaves, leafShape{name: strings.Join(c.Path(), "."), reps: reps, maxDef: def, str: textType(c.Type())})
			return
		}
		for _, ch := range c.Columns() {
			walk(ch, def, reps)
		}
	}
	walk(f.Root(), 0, nil)
	names := make([]string, len(leaves))
	for i, l := range leaves {
		names[i] = l.name
	}

	var out []sources.Record
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		buf := make([]pq.Row, 16)
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				byCol := make([][]pq.Value, len(leaves))
				for _, v := range row {
					byCol[v.Column()] = append(byCol[v.Column()], v)
				}
				vals := make([]any, len(leaves))
				for c, l := range leaves {
					vals[c] = l.assemble(t, byCol[c])
				}
				out = append(out, sources.Record{Names: names, Values: vals})
			}
			if err != nil {
				break
			}
		}
		rows.Close()
	}
	return out
}

type leafShape struct {
	name   string
	reps   []int // definition level of each repeated ancestor, outermost first
	maxDef int
	str    bool
}

// building is a list under construction; a null one has no items.
type building struct {
	items []any
	null  bool
}

// assemble rebuilds the value of one row from its values: a value with
// repetition level r adds an element to the open list at depth r-1 (r = 0:
// opens the row's top list) and opens new lists below it, as deep as its
// definition level reaches.
func (l leafShape) assemble(t *testing.T, vals []pq.Value) any {
	t.Helper()
	if len(l.reps) == 0 {
		if len(vals) != 1 {
			t.Fatalf("%s: %d values in a row", l.name, len(vals))
		}
		return l.scalar(vals[0])
	}
	k := len(l.reps)
	open := make([]*building, k)
	var top *building
	for _, v := range vals {
		d := v.DefinitionLevel()
		var newList func(j int) *building
		var addElem func(j int)
		newList = func(j int) *building {
			// The list is null when its repeated field's parent, one
			// definition level up, is not defined.
			b := &building{null: d < l.reps[j]-1}
			open[j] = b
			if d >= l.reps[j] {
				addElem(j)
			}
			return b
		}
		addElem = func(j int) {
			if j == k-1 {
				open[j].items = append(open[j].items, l.scalar(v))
			} else {
				open[j].items = append(open[j].items, newList(j+1))
			}
		}
		if r := v.RepetitionLevel(); r == 0 {
			top = newList(0)
		} else {
			addElem(r - 1)
		}
	}
	return finish(top)
}

// finish turns the lists under construction into []any: nil when null,
// empty when empty.
func finish(x any) any {
	b, ok := x.(*building)
	if !ok {
		return x
	}
	if b == nil || b.null {
		return nil
	}
	out := make([]any, len(b.items))
	for i, it := range b.items {
		out[i] = finish(it)
	}
	return out
}

func (l leafShape) scalar(v pq.Value) any {
	if v.IsNull() || v.DefinitionLevel() < l.maxDef {
		return nil
	}
	switch v.Kind() {
	case pq.Boolean:
		return v.Boolean()
	case pq.Int32:
		return v.Int32()
	case pq.Int64:
		return v.Int64()
	case pq.Float:
		return v.Float()
	case pq.Double:
		return v.Double()
	case pq.Int96:
		var b [12]byte
		for i, w := range v.Int96() {
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
		}
		return b
	case pq.ByteArray:
		if l.str {
			return string(v.ByteArray())
		}
		return append([]byte(nil), v.ByteArray()...)
	case pq.FixedLenByteArray:
		return append([]byte(nil), v.ByteArray()...)
	}
	return nil
}

func textType(t pq.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *pqformat.StringType, *pqformat.EnumType, *pqformat.JsonType:
			return true
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		return *ct == deprecated.UTF8 || *ct == deprecated.Enum || *ct == deprecated.Json
	}
	return false
}
