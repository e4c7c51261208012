package assemble

import (
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

type traced struct {
	ID    int64   `parquet:"id"`
	File  string  `parquet:"__file"`
	Group int32   `parquet:"__row_group"`
	Row   int64   `parquet:"__row_index"`
	Lang  string  `parquet:"lang"`
	Year  uint16  `parquet:"year"`
	Delta int8    `parquet:"delta"`
	Ok    bool    `parquet:"ok"`
	Score float32 `parquet:"score"`
}

// TestConsts fills trace fields from the rows' positions and Hive values
// parsed once into each field's type.
func TestConsts(t *testing.T) {
	type in struct {
		ID int64 `parquet:"id"`
	}
	rows := make([]in, 250)
	for i := range rows {
		rows[i].ID = int64(i)
	}
	r := writeFile(t, rows, 100)
	consts := []Const{
		{Name: "__file", Kind: ConstFile}, {Name: "__row_group", Kind: ConstRowGroup}, {Name: "__row_index", Kind: ConstRow},
		{Name: "lang", Kind: ConstString, Value: "en"}, {Name: "year", Kind: ConstString, Value: "65535"},
		{Name: "delta", Kind: ConstString, Value: "-128"}, {Name: "ok", Kind: ConstString, Value: "true"},
		{Name: "score", Kind: ConstString, Value: "1.5"}}
	p := plan[traced](t, r, consts...)
	if len(p.Leaves()) != 1 {
		t.Fatalf("the plan reads %d columns, want only id", len(p.Leaves()))
	}
	got := decode(t, r, p, 30, traced{File: "garbage", Row: -1})
	for i, g := range got {
		want := traced{ID: int64(i), File: "rows.parquet", Group: int32(i / 100), Row: int64(i),
			Lang: "en", Year: 65535, Delta: -128, Ok: true, Score: 1.5}
		if g != want {
			t.Fatalf("row %d: got %+v, want %+v", i, g, want)
		}
	}
	for _, c := range []struct {
		c    Const
		want string
	}{
		{Const{Name: "year", Kind: ConstString, Value: "65536"}, `year="65536" does not parse as uint16`},
		{Const{Name: "delta", Kind: ConstString, Value: "x"}, `delta="x" does not parse as int8`},
		{Const{Name: "__file", Kind: ConstRowGroup}, "needs an integer field"},
		{Const{Name: "__row_group", Kind: ConstFile}, "needs a string field"},
	} {
		bad := slices.Clone(consts)
		for i := range bad {
			if bad[i].Name == c.c.Name {
				bad[i] = c.c
			}
		}
		_, err := newPlan[traced](r, bad...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "rows.parquet") {
			t.Errorf("%+v: error %v, want one naming the file and containing %q", c.c, err, c.want)
		}
	}
}

// TestRenameAndKeep: rename maps a field's column to the file's, and keep
// leaves the fields it does not name zero.
func TestRenameAndKeep(t *testing.T) {
	type in struct {
		A int64  `parquet:"a"`
		B string `parquet:"b"`
	}
	type out struct {
		X int64  `parquet:"x"`
		B string `parquet:"b"`
	}
	rows := []in{{1, "one"}, {2, "two"}, {3, "three"}}
	r := writeFile(t, rows, 2)
	p, err := NewPlan[out](r.Name(), r.Leaves(), r.File().Root(), map[string]string{"x": "a"}, map[string]bool{"x": true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := decode(t, r, p, 2, out{X: -1, B: "garbage"})
	for i, g := range got {
		if g != (out{X: rows[i].A}) {
			t.Fatalf("row %d: %+v, want x from a and b left zero", i, g)
		}
	}
}

// TestPlanErrors: a plan that cannot fill a field fails, naming the file,
// the column and the field.
func TestPlanErrors(t *testing.T) {
	type in struct {
		ID     int64     `parquet:"id"`
		Name   string    `parquet:"name"`
		Nested [][]int32 `parquet:"nested,list"`
	}
	r := writeFile(t, []in{{ID: 1, Name: "a", Nested: [][]int32{{1}}}}, 10)
	check := func(name string, err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		for _, w := range append(want, "rows.parquet") {
			if !strings.Contains(err.Error(), w) {
				t.Fatalf("%s: error %q does not contain %q", name, err, w)
			}
		}
	}
	_, err := newPlan[struct {
		Missing int64 `parquet:"missing"`
	}](r)
	check("missing column", err, `no column "missing"`, "Missing", "id, name")
	_, err = newPlan[struct {
		Nested [][]int32 `parquet:"nested"`
	}](r) // struct fields take one level of repetition
	check("a list of lists", err, `"nested"`, "Nested")
	_, err = newPlan[struct {
		Name int64 `parquet:"name"`
	}](r)
	check("a string column into an integer", err, `"name"`, "Name")
	_, err = newPlan[struct {
		ID []int64 `parquet:"id"`
	}](r)
	check("a slice for a column that is not repeated", err, `"id"`, "ID")
	_, err = newPlan[struct {
		Name []string `parquet:"nested"`
	}](r)
	check("strings from an int32 list", err, `"nested`, "Name")
	if _, err := newPlan[int64](r); err == nil || !strings.Contains(err.Error(), "not a struct") {
		t.Fatalf("rows of int64: %v", err)
	}
}

// TestShortColumn: a decoder asked for more rows than its columns hold
// fails, naming the column, instead of reading past them: for required,
// optional and repeated columns.
func TestShortColumn(t *testing.T) {
	type row struct {
		A int64   `parquet:"a"`
		B *string `parquet:"b,optional"`
		C []int32 `parquet:"c,list"`
	}
	r := writeFile(t, make([]row, 10), 10)
	type onlyA struct {
		A int64 `parquet:"a"`
	}
	type onlyB struct {
		B *string `parquet:"b"`
	}
	type onlyC struct {
		C []int32 `parquet:"c"`
	}
	checkShort(t, r, plan[onlyA](t, r), `"a"`)
	checkShort(t, r, plan[onlyB](t, r), `"b"`)
	checkShort(t, r, plan[onlyC](t, r), `"c"`)
}

func checkShort[T any](t *testing.T, r *pqcol.Reader, p *Plan[T], column string) {
	t.Helper()
	d := NewDecoder(p)
	for i, leaf := range p.Leaves() {
		if err := r.ReadColumn(t.Context(), 0, leaf, &d.Columns[i]); err != nil {
			t.Fatal(err)
		}
	}
	d.Reset()
	if err := d.Next(make([]T, 10), &Pos{}); err != nil {
		t.Fatal(err)
	}
	if err := d.Next(make([]T, 1), &Pos{}); err == nil || !strings.Contains(err.Error(), column) {
		t.Fatalf("reading past column %s: %v", column, err)
	}
}
