package assemble

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// kinds has a field of every scalar kind a struct may take, each written
// and read back as the same Go type.
type kinds struct {
	B   bool
	I   int
	I8  int8
	I16 int16
	I32 int32
	I64 int64
	U   uint
	U8  uint8
	U16 uint16
	U32 uint32
	U64 uint64
	F32 float32
	F64 float64
	S   string
	Bs  []byte
}

func kindRow(i int) kinds {
	r := kinds{
		B: i%3 == 0, I: i * -1000003, I8: int8(i), I16: int16(i * 129), I32: int32(i * -65537), I64: int64(i) << 40,
		U: uint(i) * 1000003, U8: uint8(i), U16: uint16(i * 257), U32: uint32(i) * 16777259, U64: uint64(i) << 50,
		F32: float32(i) / 3, F64: float64(i) / 7, S: fmt.Sprint("s", i, "/", i%13), Bs: []byte(fmt.Sprint(i * i)),
	}
	switch i % 50 { // the extremes of every type
	case 1:
		r.I, r.I8, r.I16, r.I32, r.I64 = math.MinInt, math.MinInt8, math.MinInt16, math.MinInt32, math.MinInt64
		r.F32, r.F64 = -math.MaxFloat32, math.Inf(-1)
	case 2:
		r.I, r.I8, r.I16, r.I32, r.I64 = math.MaxInt, math.MaxInt8, math.MaxInt16, math.MaxInt32, math.MaxInt64
		r.U, r.U8, r.U16, r.U32, r.U64 = math.MaxUint, math.MaxUint8, math.MaxUint16, math.MaxUint32, math.MaxUint64
		r.F32, r.F64 = float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat64
	case 3:
		r.S, r.Bs = "", []byte{}
	}
	return r
}

// TestEveryKind writes a field of every supported kind and reads it back,
// in chunks that do and do not divide the row groups.
func TestEveryKind(t *testing.T) {
	rows := make([]kinds, 1000)
	for i := range rows {
		rows[i] = kindRow(i)
	}
	r := writeFile(t, rows, 300)
	p := plan[kinds](t, r)
	if len(p.Leaves()) != reflect.TypeFor[kinds]().NumField() {
		t.Fatalf("the plan reads %d columns, want one per field", len(p.Leaves()))
	}
	garbage := kinds{B: true, I: -1, I8: -1, U64: 7, F64: math.NaN(), S: "garbage", Bs: []byte("garbage")}
	for _, chunk := range []int{1, 7, 64, 300, 1024} {
		got := decode(t, r, p, chunk, garbage)
		if len(got) != len(rows) {
			t.Fatalf("chunk %d: %d rows, want %d", chunk, len(got), len(rows))
		}
		for i := range rows {
			if !reflect.DeepEqual(got[i], rows[i]) || math.Signbit(float64(got[i].F32)) != math.Signbit(float64(rows[i].F32)) {
				t.Fatalf("chunk %d, row %d:\n got %+v\nwant %+v", chunk, i, got[i], rows[i])
			}
		}
	}
}

// odd lays fields out so that most of them sit at offsets that are not a
// multiple of their neighbours' alignment, between fields the plan does
// not fill.
type odd struct {
	A      bool
	B      int64
	C      int8
	skip   int64
	D      string
	E      bool
	F      float32
	Ignore int64 `parquet:"-"`
	G      uint16
	H      []int32
	I      *int8
	J      byte
	K      [3]byte `parquet:"-"`
	L      float64
}

// TestOddOffsets fills the fields of a struct with awkward alignment and
// leaves the fields it does not fill zero, whatever was there before.
func TestOddOffsets(t *testing.T) {
	var rows []odd
	for i := range 200 {
		v := int8(-i)
		o := odd{A: i%2 == 1, B: int64(i) * -3, C: int8(i), D: fmt.Sprint(i), E: i%3 == 1, F: float32(i) + .5,
			G: uint16(i * 300), J: byte(255 - i), L: float64(i) * 1e300}
		if i%4 != 0 {
			o.H = []int32{int32(i), -int32(i)}
		}
		if i%5 != 0 {
			o.I = &v
		}
		rows = append(rows, o)
	}
	r := writeFile(t, rows, 64)
	p := plan[odd](t, r)
	garbage := odd{A: true, B: 1, skip: 99, D: "x", Ignore: 42, K: [3]byte{1, 2, 3}, H: []int32{9}, I: new(int8)}
	got := decode(t, r, p, 13, garbage)
	for i, want := range rows {
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
}

// TestFixedLenBytes reads a FIXED_LEN_BYTE_ARRAY column into a []byte
// field.
func TestFixedLenBytes(t *testing.T) {
	type in struct {
		ID  int64   `parquet:"id"`
		Key [5]byte `parquet:"key"`
	}
	type out struct {
		ID  int64  `parquet:"id"`
		Key []byte `parquet:"key"`
	}
	var rows []in
	for i := range 100 {
		rows = append(rows, in{ID: int64(i), Key: [5]byte{byte(i), 1, 2, 3, byte(255 - i)}})
	}
	r := writeFile(t, rows, 40)
	got := decode(t, r, plan[out](t, r), 9, out{})
	for i, w := range rows {
		if got[i].ID != w.ID || string(got[i].Key) != string(w.Key[:]) || cap(got[i].Key) != 5 {
			t.Fatalf("row %d: %+v (cap %d), want %+v", i, got[i], cap(got[i].Key), w)
		}
	}
}
