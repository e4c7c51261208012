package assemble

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestNullsAndPointers reads optional columns into pointer fields (nil for
// null) and into plain fields (the zero value for null, whatever the row
// held before).
func TestNullsAndPointers(t *testing.T) {
	type in struct {
		ID  int64    `parquet:"id"`
		P   *int64   `parquet:"p,optional"`
		S   *string  `parquet:"s,optional"`
		F   *float64 `parquet:"f,optional"`
		B   *bool    `parquet:"b,optional"`
		N   *int32   `parquet:"n,optional"`
		Str *string  `parquet:"str,optional"`
	}
	type out struct {
		ID  int64    `parquet:"id"`
		P   *int64   `parquet:"p"`
		S   *string  `parquet:"s"`
		F   *float64 `parquet:"f"`
		B   *bool    `parquet:"b"`
		N   int32    `parquet:"n"`
		Str string   `parquet:"str"`
	}
	var rows []in
	for i := range 500 {
		r := in{ID: int64(i)}
		if i%3 != 0 {
			p, s, f, b := int64(i)*7, fmt.Sprint("v", i), float64(i)/4, i%2 == 0
			r.P, r.S, r.F, r.B = &p, &s, &f, &b
		}
		if i%5 != 0 {
			n, str := int32(-i), fmt.Sprint(i)
			r.N, r.Str = &n, &str
		}
		if i >= 100 && i < 300 { // whole pages of nulls
			r.P, r.N = nil, nil
		}
		rows = append(rows, r)
	}
	r := writeFile(t, rows, 128)
	p := plan[out](t, r)
	three := int64(3)
	garbage := out{P: &three, S: new(string), N: 77, Str: "garbage"}
	for _, chunk := range []int{1, 10, 128} {
		chunks := decodeChunks(t, r, p, chunk, garbage)
		var got []out
		for _, c := range chunks {
			got = append(got, c...)
			checkPointersShareArena(t, c)
		}
		for i, w := range rows {
			g := got[i]
			if g.ID != w.ID || !samePtr(g.P, w.P) || !samePtr(g.S, w.S) || !samePtr(g.F, w.F) || !samePtr(g.B, w.B) {
				t.Fatalf("chunk %d, row %d: got %+v, want %+v", chunk, i, g, w)
			}
			wantN, wantStr := int32(0), ""
			if w.N != nil {
				wantN = *w.N
			}
			if w.Str != nil {
				wantStr = *w.Str
			}
			if g.N != wantN || g.Str != wantStr {
				t.Fatalf("chunk %d, row %d: plain fields %d %q, want %d %q", chunk, i, g.N, g.Str, wantN, wantStr)
			}
		}
		if *garbage.P != 3 {
			t.Fatal("the decoder wrote through a pointer it found in the row")
		}
	}
}

func samePtr[V comparable](a, b *V) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// checkPointersShareArena checks that the non-nil *int64 values of one
// chunk are consecutive elements of one allocation, so that a chunk costs
// one allocation per field, and that no two rows share a pointer.
func checkPointersShareArena[R any](t *testing.T, rows []R) {
	t.Helper()
	var prev *int64
	for i := range rows {
		p := reflect.ValueOf(&rows[i]).Elem().FieldByName("P").Interface().(*int64)
		if p == nil {
			continue
		}
		if prev != nil && unsafe.Pointer(p) != unsafe.Add(unsafe.Pointer(prev), unsafe.Sizeof(*p)) {
			t.Fatalf("row %d: the pointer is not next to the previous row's", i)
		}
		prev = p
	}
}
