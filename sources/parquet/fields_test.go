package parquet_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Kinds has a field of every kind the struct reader fills.
type Kinds struct {
	B     bool     `parquet:"b"`
	I8    int8     `parquet:"i8"`
	I16   int16    `parquet:"i16"`
	U32   uint32   `parquet:"u32"`
	U64   uint64   `parquet:"u64"`
	F32   float32  `parquet:"f32"`
	Bytes []byte   `parquet:"bytes"`
	PS    *string  `parquet:"ps,optional"`
	PF    *float64 `parquet:"pf,optional"`
	Strs  []string `parquet:"strs,list"`
	Flags []bool   `parquet:"flags"`
	Fixed [4]byte  `parquet:"-"`
}

// Widened reads some of Kinds' columns into wider fields.
type Widened struct {
	I8  int64   `parquet:"i8"`
	F32 float64 `parquet:"f32"`
	U32 uint64  `parquet:"u32"`
}

func kindsRows(n int) []Kinds {
	rows := make([]Kinds, n)
	for i := range rows {
		r := Kinds{B: i%2 == 0, I8: int8(i % 100), I16: int16(-i), U32: uint32(i * 7), U64: uint64(i) << 40,
			F32: float32(i) / 4, Bytes: []byte{byte(i), byte(i >> 8)}}
		if i%4 != 0 {
			s := strings.Repeat("s", i%6)
			r.PS = &s
			f := float64(i) * 1.5
			r.PF = &f
		}
		for k := range i % 4 {
			r.Strs = append(r.Strs, strings.Repeat("x", k))
			r.Flags = append(r.Flags, k%2 == 1)
		}
		rows[i] = r
	}
	return rows
}

func TestParquetFieldKinds(t *testing.T) {
	dir := t.TempDir()
	rows := kindsRows(3000)
	testutil.WriteParquet(t, filepath.Join(dir, "kinds.parquet"), rows, 700)
	ref := testutil.ReadParquet[Kinds](t, filepath.Join(dir, "kinds.parquet"))
	for _, n := range []int{1, 3} {
		got := testutil.Items[Kinds](t, flow.From(parquet.Read[Kinds](dir, parquet.MaxRows(256), sources.ChunkSize(100))).Parallel(n))
		if len(got) != len(rows) {
			t.Fatalf("%d rows, want %d", len(got), len(rows))
		}
		for i, it := range got {
			if w := normKinds(ref[i]); !reflect.DeepEqual(normKinds(it.Value), w) {
				t.Fatalf("parallelism %d: row %d = %+v, want %+v", n, i, it.Value, w)
			}
		}
	}
	wide := testutil.Items[Widened](t, flow.From(parquet.Read[Widened](dir)))
	for i, it := range wide {
		if r := rows[i]; it.Value != (Widened{I8: int64(r.I8), F32: float64(r.F32), U32: uint64(r.U32)}) {
			t.Fatalf("row %d widened to %+v", i, it.Value)
		}
	}
}

// normKinds makes nil and empty slices compare equal.
func normKinds(k Kinds) Kinds {
	if len(k.Strs) == 0 {
		k.Strs = nil
	}
	if len(k.Flags) == 0 {
		k.Flags = nil
	}
	if len(k.Bytes) == 0 {
		k.Bytes = nil
	}
	return k
}

func TestParquetFieldErrors(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteParquet(t, filepath.Join(dir, "kinds.parquet"), kindsRows(10), 10)
	cases := map[string]error{
		"narrowing": runErr[struct {
			U64 int32 `parquet:"u64"`
		}](dir),
		"missing": runErr[struct {
			Nope int64 `parquet:"nope"`
		}](dir),
		"kind": runErr[struct {
			B string `parquet:"b"`
		}](dir),
		"list into scalar": runErr[struct {
			Strs string `parquet:"strs"`
		}](dir),
	}
	want := map[string]string{
		"narrowing":        "int32 does not hold every value of the column",
		"missing":          `no column "nope"`,
		"kind":             "cannot read a BOOLEAN column into string",
		"list into scalar": "needs a slice field",
	}
	for name, err := range cases {
		if err == nil || !strings.Contains(err.Error(), want[name]) || !strings.Contains(err.Error(), "kinds.parquet") {
			t.Errorf("%s: error %v, want one naming kinds.parquet and saying %q", name, err, want[name])
		}
	}
}

// TestParquetFieldOfGroup: a field named for a group of columns (a
// nested struct written by another writer) fails naming the group and
// the way to read its leaves, fields named by their dotted paths, which
// read them.
func TestParquetFieldOfGroup(t *testing.T) {
	type inner struct {
		A int64  `parquet:"a"`
		B string `parquet:"b"`
	}
	type outer struct {
		ID int64  `parquet:"id"`
		P  *inner `parquet:"p"`
	}
	dir := t.TempDir()
	testutil.WriteParquet(t, filepath.Join(dir, "nested.parquet"), []outer{{ID: 1, P: &inner{A: 2, B: "x"}}, {ID: 3}}, 2)
	err := runErr[outer](dir)
	if err == nil || !strings.Contains(err.Error(), `nested.parquet: field P of parquet_test.outer is for "p", a group of columns`) ||
		!strings.Contains(err.Error(), "named by its dotted path (columns: id, p.a, p.b)") {
		t.Fatalf("a field of a group: %v", err)
	}
	type flat struct {
		ID int64   `parquet:"id"`
		A  *int64  `parquet:"p.a"`
		B  *string `parquet:"p.b"`
	}
	var got []string
	for v, err := range flow.Values[flat](t.Context(), flow.From(parquet.Read[flat](dir))) {
		if err != nil {
			t.Fatal(err)
		}
		s := fmt.Sprint(v.ID)
		if v.A != nil {
			s += fmt.Sprint(" ", *v.A, " ", *v.B)
		}
		got = append(got, s)
	}
	if strings.Join(got, ",") != "1 2 x,3" {
		t.Fatalf("the leaves by their dotted paths: %q", got)
	}
}

func runErr[T any](dir string) error {
	for _, err := range flow.Items[T](context.Background(), flow.From(parquet.Read[T](dir))) {
		if err != nil {
			return err
		}
	}
	return nil
}
