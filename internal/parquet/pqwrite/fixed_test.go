package pqwrite

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// twos returns v as a big-endian two's complement integer of n bytes.
func twos(v int64, n int) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(v))
	out := bytes.Repeat([]byte{byte(v >> 63)}, n) // the sign, extended
	copy(out[max(n-8, 0):], b[max(8-n, 0):])
	return out
}

// cDec is row i's c_dec for d: d×1000 in 6 to 8 bytes, so that the
// statistics compare integers of different lengths.
func cDec(d int64, i int) []byte { return twos(d*1000, 6+i%3) }

// TestWriterFixedAndDecimals: FIXED_LEN_BYTE_ARRAY, INT96 and DECIMAL
// byte arrays read back value for value, and the statistics of decimals
// order them as signed numbers (-5 below 3), where other byte arrays
// order as unsigned bytes.
func TestWriterFixedAndDecimals(t *testing.T) {
	schema := parquet.NewSchema("t", parquet.Group{
		"a_uuid": parquet.Leaf(parquet.FixedLenByteArrayType(4)),
		"b_dec":  parquet.Decimal(2, 10, parquet.FixedLenByteArrayType(5)),
		"c_dec":  parquet.Optional(parquet.Decimal(1, 20, parquet.ByteArrayType)),
		"d_ts":   parquet.Leaf(parquet.Int96Type),
	})
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, PageSize(64))
	if err != nil {
		t.Fatal(err)
	}
	cols := w.NewColumns()
	decs := []int64{3, -5, 1 << 30, -(1 << 33), 0, 7, -1}
	for i, d := range decs {
		cols[0].Bytes = append(cols[0].Bytes, byte(i), 0xF0, byte(d), 1)
		cols[1].Bytes = append(cols[1].Bytes, twos(d, 5)...)
		if i == 4 {
			cols[2].DefLevels = append(cols[2].DefLevels, 0)
		} else {
			cols[2].DefLevels = append(cols[2].DefLevels, 1)
			cols[2].AppendBytes(cDec(d, i))
		}
		cols[3].Bytes = binary.LittleEndian.AppendUint32(cols[3].Bytes, uint32(i))
		cols[3].Bytes = binary.LittleEndian.AppendUint32(cols[3].Bytes, 7)
		cols[3].Bytes = binary.LittleEndian.AppendUint32(cols[3].Bytes, uint32(int32(d>>40)))
	}
	f := writeOpen(t, w, &buf, cols)
	rows := make([]parquet.Row, len(decs))
	r := f.RowGroups()[0].Rows()
	defer r.Close()
	if n, _ := r.ReadRows(rows); n != len(decs) {
		t.Fatalf("read %d rows, want %d", n, len(decs))
	}
	for i, d := range decs {
		row := rows[i]
		if got := row[0].ByteArray(); !bytes.Equal(got, []byte{byte(i), 0xF0, byte(d), 1}) {
			t.Errorf("row %d: a_uuid %x", i, got)
		}
		if got := row[1].ByteArray(); !bytes.Equal(got, twos(d, 5)) {
			t.Errorf("row %d: b_dec %x, want %x", i, got, twos(d, 5))
		}
		if i == 4 != row[2].IsNull() || (i != 4 && !bytes.Equal(row[2].ByteArray(), cDec(d, i))) {
			t.Errorf("row %d: c_dec %v", i, row[2])
		}
		want := deprecated.Int96{uint32(i), 7, uint32(int32(d >> 40))}
		if got := row[3].Int96(); got != want {
			t.Errorf("row %d: d_ts %v, want %v", i, got, want)
		}
	}
	st := f.Metadata().RowGroups[0].Columns[1].MetaData.Statistics
	if !bytes.Equal(st.MinValue, twos(-(1<<33), 5)) || !bytes.Equal(st.MaxValue, twos(1<<30, 5)) {
		t.Errorf("b_dec statistics [%x, %x], want [%x, %x]", st.MinValue, st.MaxValue, twos(-(1<<33), 5), twos(1<<30, 5))
	}
	st = f.Metadata().RowGroups[0].Columns[2].MetaData.Statistics
	if !bytes.Equal(st.MinValue, cDec(-(1<<33), 3)) || !bytes.Equal(st.MaxValue, cDec(1<<30, 2)) || st.NullCount != 1 {
		t.Errorf("c_dec statistics [%x, %x] %d nulls", st.MinValue, st.MaxValue, st.NullCount)
	}
	st = f.Metadata().RowGroups[0].Columns[0].MetaData.Statistics
	if !bytes.Equal(st.MinValue, []byte{0, 0xF0, 3, 1}) || !bytes.Equal(st.MaxValue, []byte{6, 0xF0, 0xFF, 1}) {
		t.Errorf("a_uuid statistics [%x, %x], want unsigned byte order", st.MinValue, st.MaxValue)
	}
}

func TestCompareTwosComplement(t *testing.T) {
	vals := []int64{-(1 << 40), -300, -256, -255, -1, 0, 1, 127, 128, 255, 256, 1 << 40}
	for i, a := range vals {
		for j, b := range vals {
			for _, n := range []int{6, 8} {
				got := compareTwosComplement(twos(a, n), twos(b, 6+(i+j)%3))
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got != want {
					t.Errorf("compare(%d as %d bytes, %d) = %d, want %d", a, n, b, got, want)
				}
			}
		}
	}
	if compareTwosComplement(nil, []byte{0xFF}) != 1 || compareTwosComplement(nil, []byte{0, 0}) != 0 {
		t.Error("the empty integer is not 0")
	}
}
