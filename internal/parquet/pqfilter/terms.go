package pqfilter

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// term is a comparison of one column with literals, compiled for the
// column's type.
type term interface {
	// eval sets out[i] to the comparison's value on row i, for the n rows
	// that c holds.
	eval(c *pqcol.Column, n int, out []filter.Tri) error
	// bounds says whether the comparison can be true, and whether it can
	// be false, on non-null values that lie between the PLAIN-encoded
	// statistics min and max. Unreadable bounds make both possible.
	bounds(min, max []byte) (canTrue, canFalse bool)
}

// termOf is a term on columns whose values are V.
type termOf[V any] struct {
	op   filter.Op
	lits []func(V) int // per literal: the sign of (v - literal)
	kind *kindOf[V]
}

// kindOf is how a term reads values of one column type.
type kindOf[V any] struct {
	// value returns value i of c, and false if it compares as null (NaN).
	value func(c *pqcol.Column, i int) (V, bool)
	// decode decodes a PLAIN-encoded statistic, and false if it is unusable.
	decode func(b []byte) (V, bool)
	// cmp orders values.
	cmp func(a, b V) int
}

// A literal compiles into the sign of (v - literal) for the column's
// values v, or fails if the column's type and the literal's kind do not
// compare.
type literalFunc[V any] func(leaf *pqcol.Leaf, lit filter.Value) (func(V) int, bool)

// newTerm compiles a comparison (op with vals) on leaf.
func newTerm(leaf *pqcol.Leaf, op filter.Op, vals []filter.Value) (term, error) {
	if why := uncomparable(leaf); why != "" {
		return nil, errors.New(why)
	}
	switch leaf.Kind {
	case parquet.Boolean:
		return makeTerm(leaf, op, vals, boolKind, boolLiteral)
	case parquet.Int32:
		if assemble.Unsigned(leaf) {
			return makeTerm(leaf, op, vals, uint32Kind, uintLiteral)
		}
		return makeTerm(leaf, op, vals, int32Kind, intLiteral)
	case parquet.Int64:
		if assemble.Unsigned(leaf) {
			return makeTerm(leaf, op, vals, uint64Kind, uintLiteral)
		}
		return makeTerm(leaf, op, vals, int64Kind, intLiteral)
	case parquet.Float:
		return makeTerm(leaf, op, vals, floatKind, floatLiteral(32))
	case parquet.Double:
		return makeTerm(leaf, op, vals, doubleKind, floatLiteral(64))
	case parquet.ByteArray:
		return makeTerm(leaf, op, vals, byteArrayKind, bytesLiteral)
	case parquet.FixedLenByteArray:
		return makeTerm(leaf, op, vals, fixedKind, bytesLiteral)
	}
	return nil, errors.New("the type cannot be filtered")
}

func makeTerm[V any](leaf *pqcol.Leaf, op filter.Op, vals []filter.Value, k *kindOf[V], literal literalFunc[V]) (term, error) {
	t := &termOf[V]{op: op, kind: k}
	for _, v := range vals {
		lit, ok := literal(leaf, v)
		if !ok {
			return nil, fmt.Errorf("cannot be compared with the %s %s", v.Kind, v)
		}
		t.lits = append(t.lits, lit)
	}
	return t, nil
}

func (t *termOf[V]) test(v V) filter.Tri {
	if t.op == filter.In {
		for _, lit := range t.lits {
			if lit(v) == 0 {
				return filter.TriTrue
			}
		}
		return filter.TriFalse
	}
	return filter.TriOf(filter.Holds(t.op, t.lits[0](v)))
}

func (t *termOf[V]) eval(c *pqcol.Column, n int, out []filter.Tri) error {
	maxDef := c.Leaf.MaxDefinitionLevel
	if maxDef > 0 && len(c.DefLevels) < n || maxDef == 0 && c.Len() < n {
		return fmt.Errorf("column %q holds fewer levels or values than its %d rows", c.Leaf.PathString(), n)
	}
	v, values := 0, c.Len()
	for i := range n {
		if maxDef > 0 && int(c.DefLevels[i]) != maxDef {
			out[i] = filter.TriNull
			continue
		}
		if v >= values {
			return fmt.Errorf("column %q holds fewer values than its definition levels say", c.Leaf.PathString())
		}
		x, ok := t.kind.value(c, v)
		v++
		if !ok {
			out[i] = filter.TriNull
			continue
		}
		out[i] = t.test(x)
	}
	return nil
}

func (t *termOf[V]) bounds(minb, maxb []byte) (canTrue, canFalse bool) {
	lo, ok1 := t.kind.decode(minb)
	hi, ok2 := t.kind.decode(maxb)
	if !ok1 || !ok2 || t.kind.cmp(lo, hi) > 0 {
		return true, true
	}
	if t.op == filter.In {
		for _, lit := range t.lits {
			a, b := lit(lo), lit(hi)
			if a == 0 && b == 0 {
				return true, false // every value is this literal
			}
			canTrue = canTrue || a <= 0 && b >= 0
		}
		return canTrue, true
	}
	// a and b are the signs of (min - literal) and (max - literal).
	a, b := t.lits[0](lo), t.lits[0](hi)
	switch t.op {
	case filter.Eq:
		return a <= 0 && b >= 0, a != 0 || b != 0
	case filter.Ne:
		return a != 0 || b != 0, a <= 0 && b >= 0
	case filter.Lt:
		return a < 0, b >= 0
	case filter.Le:
		return a <= 0, b > 0
	case filter.Gt:
		return b > 0, a <= 0
	default:
		return b >= 0, a < 0
	}
}

// The column types.

var boolKind = &kindOf[bool]{
	value: func(c *pqcol.Column, i int) (bool, bool) { return c.Boolean[i], true },
	decode: func(b []byte) (bool, bool) {
		if len(b) != 1 {
			return false, false
		}
		return b[0]&1 == 1, true
	},
	cmp: filter.CompareBool,
}

var int32Kind = &kindOf[int64]{
	value:  func(c *pqcol.Column, i int) (int64, bool) { return int64(c.Int32[i]), true },
	decode: decodeLE(4, func(u uint64) int64 { return int64(int32(uint32(u))) }),
	cmp:    cmp.Compare[int64],
}

var int64Kind = &kindOf[int64]{
	value:  func(c *pqcol.Column, i int) (int64, bool) { return c.Int64[i], true },
	decode: decodeLE(8, func(u uint64) int64 { return int64(u) }),
	cmp:    cmp.Compare[int64],
}

var uint32Kind = &kindOf[uint64]{
	value:  func(c *pqcol.Column, i int) (uint64, bool) { return uint64(uint32(c.Int32[i])), true },
	decode: decodeLE(4, func(u uint64) uint64 { return u }),
	cmp:    cmp.Compare[uint64],
}

var uint64Kind = &kindOf[uint64]{
	value:  func(c *pqcol.Column, i int) (uint64, bool) { return uint64(c.Int64[i]), true },
	decode: decodeLE(8, func(u uint64) uint64 { return u }),
	cmp:    cmp.Compare[uint64],
}

var floatKind = &kindOf[float64]{
	value: func(c *pqcol.Column, i int) (float64, bool) {
		v := float64(c.Float[i])
		return v, v == v
	},
	decode: decodeLE(4, func(u uint64) float64 { return float64(math.Float32frombits(uint32(u))) }),
	cmp:    cmp.Compare[float64],
}

var doubleKind = &kindOf[float64]{
	value: func(c *pqcol.Column, i int) (float64, bool) {
		v := c.Double[i]
		return v, v == v
	},
	decode: decodeLE(8, math.Float64frombits),
	cmp:    cmp.Compare[float64],
}

var byteArrayKind = &kindOf[[]byte]{
	value:  func(c *pqcol.Column, i int) ([]byte, bool) { return c.ByteArray(i), true },
	decode: func(b []byte) ([]byte, bool) { return b, b != nil },
	cmp:    bytes.Compare,
}

var fixedKind = &kindOf[[]byte]{
	value:  func(c *pqcol.Column, i int) ([]byte, bool) { return c.FixedLenByteArray(i), true },
	decode: func(b []byte) ([]byte, bool) { return b, b != nil },
	cmp:    bytes.Compare,
}

// decodeLE returns a decoder of n-byte little-endian statistics; a NaN
// float decodes as unusable.
func decodeLE[V any](n int, conv func(uint64) V) func([]byte) (V, bool) {
	return func(b []byte) (V, bool) {
		var u uint64
		switch {
		case len(b) != n:
			var zero V
			return zero, false
		case n == 4:
			u = uint64(binary.LittleEndian.Uint32(b))
		default:
			u = binary.LittleEndian.Uint64(b)
		}
		v := conv(u)
		if f, ok := any(v).(float64); ok && f != f {
			return v, false
		}
		return v, true
	}
}
