package assemble

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

type listsIn struct {
	ID    int64     `parquet:"id"`
	L     []int32   `parquet:"l,list"`
	R     []int64   `parquet:"r"` // a repeated column, no LIST
	S     []string  `parquet:"s,list"`
	NS    []*string `parquet:"ns,list"`
	NI    []*int32  `parquet:"ni,list"`
	Bytes [][]byte  `parquet:"bytes,list"`
}

type listsOut struct {
	ID    int64    `parquet:"id"`
	L     []int32  `parquet:"l"`
	R     []int64  `parquet:"r"`
	S     []string `parquet:"s"`
	NS    []string `parquet:"ns"`
	NI    []int32  `parquet:"ni"`
	Bytes [][]byte `parquet:"bytes"`
}

func listRows() []listsIn {
	var rows []listsIn
	for i := range 400 {
		r := listsIn{ID: int64(i)}
		for k := range i % 6 {
			r.L = append(r.L, int32(i*10+k))
			r.R = append(r.R, -int64(i*10+k))
			r.S = append(r.S, fmt.Sprint(i, ".", k))
			r.Bytes = append(r.Bytes, []byte(fmt.Sprint(k)))
			s, n := fmt.Sprint("n", k), int32(k)
			if (i+k)%4 == 0 {
				r.NS = append(r.NS, nil)
				r.NI = append(r.NI, nil)
			} else {
				r.NS = append(r.NS, &s)
				r.NI = append(r.NI, &n)
			}
		}
		if i%6 == 1 {
			r.L = []int32{} // empty, not nil: both read as nil
		}
		rows = append(rows, r)
	}
	return rows
}

// want is what reading row r gives: rows without elements get nil slices,
// null elements read as zero values.
func (r listsIn) want() listsOut {
	o := listsOut{ID: r.ID}
	if len(r.L) > 0 {
		o.L = r.L
	}
	o.R, o.S, o.Bytes = r.R, r.S, r.Bytes
	for k := range r.NS {
		var s string
		var n int32
		if r.NS[k] != nil {
			s, n = *r.NS[k], *r.NI[k]
		}
		o.NS, o.NI = append(o.NS, s), append(o.NI, n)
	}
	return o
}

// TestLists reads LIST and plain repeated columns, with empty and null
// lists and null elements, on the fast path (no null element in a chunk)
// and the general one.
func TestLists(t *testing.T) {
	rows := listRows()
	r := writeFile(t, rows, 150)
	p := plan[listsOut](t, r)
	garbage := listsOut{L: []int32{1}, NS: []string{"x"}, Bytes: [][]byte{{1}}}
	for _, chunk := range []int{1, 3, 50, 150} {
		chunks := decodeChunks(t, r, p, chunk, garbage)
		var got []listsOut
		for _, c := range chunks {
			checkListsShareArenas(t, c)
			got = append(got, c...)
		}
		for i, row := range rows {
			if w := row.want(); !reflect.DeepEqual(got[i], w) {
				t.Fatalf("chunk %d, row %d:\n got %+v\nwant %+v", chunk, i, got[i], w)
			}
		}
	}
}

// checkListsShareArenas checks that the lists, strings and byte slices of
// one chunk are cut from one allocation each, one after the other, and
// capped, so that appending to one never writes into another's values.
func checkListsShareArenas(t *testing.T, rows []listsOut) {
	t.Helper()
	var nextL unsafe.Pointer
	var nextS unsafe.Pointer
	for i := range rows {
		l := rows[i].L
		if len(l) > 0 {
			if cap(l) != len(l) {
				t.Fatalf("row %d: a list of %d with capacity %d", i, len(l), cap(l))
			}
			if nextL != nil && unsafe.Pointer(unsafe.SliceData(l)) != nextL {
				t.Fatalf("row %d: the list does not follow the previous row's in one arena", i)
			}
			nextL = unsafe.Add(unsafe.Pointer(unsafe.SliceData(l)), len(l)*4)
		}
		for _, s := range rows[i].S {
			if nextS != nil && unsafe.Pointer(unsafe.StringData(s)) != nextS {
				t.Fatalf("row %d: string %q does not follow the previous one in one arena", i, s)
			}
			nextS = unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), len(s))
		}
		for k, b := range rows[i].Bytes {
			if cap(b) != len(b) {
				t.Fatalf("row %d: bytes %d have capacity %d for length %d", i, k, cap(b), len(b))
			}
		}
	}
	if len(rows) > 1 && len(rows[0].L) > 0 && len(rows[1].L) > 0 {
		before := rows[1].L[0]
		_ = append(rows[0].L, 12345)
		if rows[1].L[0] != before {
			t.Fatal("appending to one row's list changed the next row's")
		}
	}
}

// TestStringsShareOneAllocation: the strings of a chunk's rows are
// substrings of one copy of the column's bytes, in order; the byte slices
// are capped slices of another copy.
func TestStringsShareOneAllocation(t *testing.T) {
	type row struct {
		S string `parquet:"s"`
		B []byte `parquet:"b"`
	}
	var rows []row
	for i := range 300 {
		rows = append(rows, row{S: fmt.Sprint("string ", i), B: []byte(fmt.Sprint("bytes ", i))})
	}
	r := writeFile(t, rows, 300)
	for _, c := range decodeChunks(t, r, plan[row](t, r), 100, row{}) {
		for i := 1; i < len(c); i++ {
			if unsafe.Pointer(unsafe.StringData(c[i].S)) != unsafe.Add(unsafe.Pointer(unsafe.StringData(c[i-1].S)), len(c[i-1].S)) {
				t.Fatalf("string %d of the chunk does not follow string %d", i, i-1)
			}
			prev := c[i-1].B
			if cap(prev) != len(prev) || unsafe.Pointer(unsafe.SliceData(c[i].B)) != unsafe.Add(unsafe.Pointer(unsafe.SliceData(prev)), len(prev)) {
				t.Fatalf("bytes %d of the chunk are not capped or do not follow bytes %d", i, i-1)
			}
		}
		first := c[1].B[0]
		c[0].B = append(c[0].B, '!')
		if c[1].B[0] != first {
			t.Fatal("appending to one row's bytes changed the next row's")
		}
	}
}
