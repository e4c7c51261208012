package pqfilter

import (
	"bytes"
	"cmp"
	"math"
	"time"

	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Which literals compare with which columns (see sources/parquet.RowFilter):
// bool with BOOLEAN; numbers (signed, unsigned, floating point) with
// INT32, INT64, FLOAT and DOUBLE, exactly; strings and []byte with
// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY, byte-wise; time.Time with DATE
// and TIMESTAMP columns, exactly.

func boolLiteral(_ *pqcol.Leaf, lit filter.Value) (func(bool) int, bool) {
	if lit.Kind != filter.Bool {
		return nil, false
	}
	return func(v bool) int { return filter.CompareBool(v, lit.Bool) }, true
}

func intLiteral(leaf *pqcol.Leaf, lit filter.Value) (func(int64) int, bool) {
	if lit.Kind == filter.Time {
		return timeLiteral(leaf, lit.Time)
	}
	if !lit.Kind.Numeric() {
		return nil, false
	}
	return lit.CompareInt, true
}

func uintLiteral(_ *pqcol.Leaf, lit filter.Value) (func(uint64) int, bool) {
	if !lit.Kind.Numeric() {
		return nil, false
	}
	return lit.CompareUintWith, true
}

// floatLiteral compares with FLOAT (bits 32) or DOUBLE (64) columns; a
// floating-point literal is first rounded to the column's precision, so
// that 0.1 equals a FLOAT 0.1.
func floatLiteral(bits int) literalFunc[float64] {
	return func(_ *pqcol.Leaf, lit filter.Value) (func(float64) int, bool) {
		if !lit.Kind.Numeric() {
			return nil, false
		}
		if lit.Kind == filter.Float && bits == 32 {
			lit.Float = float64(float32(lit.Float))
		}
		return lit.CompareFloatWith, true
	}
}

func bytesLiteral(_ *pqcol.Leaf, lit filter.Value) (func([]byte) int, bool) {
	if lit.Kind != filter.String && lit.Kind != filter.Bytes {
		return nil, false
	}
	b := []byte(lit.Str)
	return func(v []byte) int { return bytes.Compare(v, b) }, true
}

// timeLiteral compares t with a DATE column (days since 1970-01-01) or a
// TIMESTAMP column (units since 1970-01-01T00:00:00Z; a timestamp not
// adjusted to UTC compares as if it were), exactly: a column value equals
// t only if t is a whole number of the column's units.
func timeLiteral(leaf *pqcol.Leaf, t time.Time) (func(int64) int, bool) {
	perSecond, ok := timeUnit(leaf)
	if !ok {
		return nil, false
	}
	sec, ns := t.Unix(), int64(t.Nanosecond())
	var q int64 // t in the column's units, rounded down
	var exact bool
	if perSecond == 0 {
		q, exact = floorDiv(sec, 86400), sec%86400 == 0 && ns == 0
	} else {
		nsPerUnit := int64(1e9) / perSecond
		if sec > math.MaxInt64/perSecond-1 {
			return func(int64) int { return -1 }, true // after every value
		}
		if sec < math.MinInt64/perSecond+1 {
			return func(int64) int { return 1 }, true
		}
		q, exact = sec*perSecond+ns/nsPerUnit, ns%nsPerUnit == 0
	}
	return func(v int64) int {
		if c := cmp.Compare(v, q); c != 0 || exact {
			return c
		}
		return -1 // v == q < t
	}, true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
