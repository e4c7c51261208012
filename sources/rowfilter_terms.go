package sources

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/pqcol"
)

// term is a comparison of one column with literals, compiled for the
// column's type.
type term interface {
	// eval sets out[i] to the comparison's value on row i, for the n rows
	// that c holds.
	eval(c *pqcol.Column, n int, out []tri) error
	// bounds says whether the comparison can be true, and whether it can
	// be false, on non-null values that lie between the PLAIN-encoded
	// statistics min and max. Unreadable bounds make both possible.
	bounds(min, max []byte) (canTrue, canFalse bool)
}

// termOf is a term on columns whose values are V.
type termOf[V any] struct {
	op   filterOp
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
	// literal parses a literal into a comparison with it.
	literal func(s string) (func(V) int, error)
}

// newTerm compiles a comparison (op with vals) on leaf.
func newTerm(leaf *pqcol.Leaf, op filterOp, vals []string) (term, error) {
	if why := uncomparable(leaf); why != "" {
		return nil, errors.New(why)
	}
	switch leaf.Kind {
	case parquet.Boolean:
		return makeTerm(op, vals, boolKind)
	case parquet.Int32:
		if unsigned(leaf) {
			return makeTerm(op, vals, uint32Kind)
		}
		return makeTerm(op, vals, int32Kind)
	case parquet.Int64:
		if unsigned(leaf) {
			return makeTerm(op, vals, uint64Kind)
		}
		return makeTerm(op, vals, int64Kind)
	case parquet.Float:
		return makeTerm(op, vals, floatKind)
	case parquet.Double:
		return makeTerm(op, vals, doubleKind)
	case parquet.ByteArray:
		return makeTerm(op, vals, byteArrayKind)
	case parquet.FixedLenByteArray:
		return makeTerm(op, vals, fixedKind)
	}
	return nil, errors.New("the type cannot be filtered")
}

func makeTerm[V any](op filterOp, vals []string, k *kindOf[V]) (term, error) {
	t := &termOf[V]{op: op, kind: k}
	for _, s := range vals {
		lit, err := k.literal(s)
		if err != nil {
			return nil, err
		}
		t.lits = append(t.lits, lit)
	}
	return t, nil
}

// holds reports whether op holds for a value whose comparison with the
// literal has sign s.
func holds(op filterOp, s int) bool {
	switch op {
	case opEq:
		return s == 0
	case opNe:
		return s != 0
	case opLt:
		return s < 0
	case opLe:
		return s <= 0
	case opGt:
		return s > 0
	default:
		return s >= 0
	}
}

func (t *termOf[V]) test(v V) tri {
	if t.op == opIn {
		for _, lit := range t.lits {
			if lit(v) == 0 {
				return triTrue
			}
		}
		return triFalse
	}
	if holds(t.op, t.lits[0](v)) {
		return triTrue
	}
	return triFalse
}

func (t *termOf[V]) eval(c *pqcol.Column, n int, out []tri) error {
	maxDef := c.Leaf.MaxDefinitionLevel
	if maxDef > 0 && len(c.DefLevels) < n || maxDef == 0 && c.Len() < n {
		return fmt.Errorf("column %q holds fewer levels or values than its %d rows", c.Leaf.PathString(), n)
	}
	v, values := 0, c.Len()
	for i := range n {
		if maxDef > 0 && int(c.DefLevels[i]) != maxDef {
			out[i] = triNull
			continue
		}
		if v >= values {
			return fmt.Errorf("column %q holds fewer values than its definition levels say", c.Leaf.PathString())
		}
		x, ok := t.kind.value(c, v)
		v++
		if !ok {
			out[i] = triNull
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
	if t.op == opIn {
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
	case opEq:
		return a <= 0 && b >= 0, a != 0 || b != 0
	case opNe:
		return a != 0 || b != 0, a <= 0 && b >= 0
	case opLt:
		return a < 0, b >= 0
	case opLe:
		return a <= 0, b > 0
	case opGt:
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
	cmp: cmpBool,
	literal: func(s string) (func(bool) int, error) {
		lit, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("literal %q is not a boolean", s)
		}
		return func(v bool) int { return cmpBool(v, lit) }, nil
	},
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

var int32Kind = &kindOf[int64]{
	value:   func(c *pqcol.Column, i int) (int64, bool) { return int64(c.Int32[i]), true },
	decode:  decodeLE(4, func(u uint64) int64 { return int64(int32(uint32(u))) }),
	cmp:     cmp.Compare[int64],
	literal: intLiteral,
}

var int64Kind = &kindOf[int64]{
	value:   func(c *pqcol.Column, i int) (int64, bool) { return c.Int64[i], true },
	decode:  decodeLE(8, func(u uint64) int64 { return int64(u) }),
	cmp:     cmp.Compare[int64],
	literal: intLiteral,
}

var uint32Kind = &kindOf[uint64]{
	value:   func(c *pqcol.Column, i int) (uint64, bool) { return uint64(uint32(c.Int32[i])), true },
	decode:  decodeLE(4, func(u uint64) uint64 { return u }),
	cmp:     cmp.Compare[uint64],
	literal: uintLiteral,
}

var uint64Kind = &kindOf[uint64]{
	value:   func(c *pqcol.Column, i int) (uint64, bool) { return uint64(c.Int64[i]), true },
	decode:  decodeLE(8, func(u uint64) uint64 { return u }),
	cmp:     cmp.Compare[uint64],
	literal: uintLiteral,
}

var floatKind = &kindOf[float64]{
	value: func(c *pqcol.Column, i int) (float64, bool) {
		v := float64(c.Float[i])
		return v, v == v
	},
	decode: decodeLE(4, func(u uint64) float64 { return float64(math.Float32frombits(uint32(u))) }),
	cmp:    cmpFloat,
	literal: func(s string) (func(float64) int, error) {
		return floatLiteral(s, 32)
	},
}

var doubleKind = &kindOf[float64]{
	value: func(c *pqcol.Column, i int) (float64, bool) {
		v := c.Double[i]
		return v, v == v
	},
	decode: decodeLE(8, math.Float64frombits),
	cmp:    cmpFloat,
	literal: func(s string) (func(float64) int, error) {
		return floatLiteral(s, 64)
	},
}

var byteArrayKind = &kindOf[[]byte]{
	value:   func(c *pqcol.Column, i int) ([]byte, bool) { return c.ByteArray(i), true },
	decode:  func(b []byte) ([]byte, bool) { return b, b != nil },
	cmp:     bytes.Compare,
	literal: bytesLiteral,
}

var fixedKind = &kindOf[[]byte]{
	value:   func(c *pqcol.Column, i int) ([]byte, bool) { return c.FixedLenByteArray(i), true },
	decode:  func(b []byte) ([]byte, bool) { return b, b != nil },
	cmp:     bytes.Compare,
	literal: bytesLiteral,
}

func bytesLiteral(s string) (func([]byte) int, error) {
	lit := []byte(s)
	return func(v []byte) int { return bytes.Compare(v, lit) }, nil
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

// cmpFloat orders numbers that are not NaN; -0 equals +0.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Literals.

// decimal parses a decimal number such as "-1.5" or "2e3" (not "NaN",
// "Inf", hexadecimal or underscores) with the given precision, and fails
// if it is out of the precision's range.
func decimal(s string, bits int) (float64, bool) {
	if s == "" || strings.Trim(s, "0123456789+-.eE") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, bits)
	return f, err == nil
}

func intLiteral(s string) (func(int64) int, error) {
	if lit, err := strconv.ParseInt(s, 10, 64); err == nil {
		return func(v int64) int { return cmp.Compare(v, lit) }, nil
	}
	f, ok := decimal(s, 64)
	if !ok {
		return nil, fmt.Errorf("literal %q is not a number", s)
	}
	return func(v int64) int { return cmpIntFloat(v, f) }, nil
}

func uintLiteral(s string) (func(uint64) int, error) {
	if lit, err := strconv.ParseUint(s, 10, 64); err == nil {
		return func(v uint64) int { return cmp.Compare(v, lit) }, nil
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return func(uint64) int { return 1 }, nil // a negative integer
	}
	f, ok := decimal(s, 64)
	if !ok {
		return nil, fmt.Errorf("literal %q is not a number", s)
	}
	return func(v uint64) int { return cmpUintFloat(v, f) }, nil
}

// floatLiteral parses a literal for FLOAT (bits 32) or DOUBLE (64)
// columns, rounding it to the column's precision.
func floatLiteral(s string, bits int) (func(float64) int, error) {
	lit, ok := decimal(s, bits)
	if !ok {
		return nil, fmt.Errorf("literal %q is not a number within the range of %d-bit floats", s, bits)
	}
	return func(v float64) int { return cmpFloat(v, lit) }, nil
}

// cmpIntFloat compares an integer with a number that is not NaN, exactly.
func cmpIntFloat(v int64, f float64) int {
	switch {
	case f >= 0x1p63:
		return -1
	case f < -0x1p63:
		return 1
	}
	t := math.Trunc(f)
	return cmpTruncated(cmp.Compare(v, int64(t)), f, t)
}

// cmpUintFloat compares an unsigned integer with a number that is not
// NaN, exactly.
func cmpUintFloat(v uint64, f float64) int {
	switch {
	case f < 0:
		return 1
	case f >= 0x1p64:
		return -1
	}
	t := math.Trunc(f)
	return cmpTruncated(cmp.Compare(v, uint64(t)), f, t)
}

// cmpTruncated completes the comparison of an integer v with f, given c,
// the comparison of v with t, f truncated toward zero: if v equals t, f's
// fraction decides.
func cmpTruncated(c int, f, t float64) int {
	switch {
	case c != 0:
		return c
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}
