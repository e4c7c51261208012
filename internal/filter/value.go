package filter

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a literal.
type Kind uint8

const (
	Int    Kind = iota + 1 // signed integers: Value.Int
	Uint                   // unsigned integers: Value.Uint
	Float                  // floating point: Value.Float
	String                 // Value.Str
	Bytes                  // Value.Str holds the bytes
	Bool                   // Value.Bool
	Time                   // Value.Time
)

var kindNames = [...]string{Int: "integer", Uint: "unsigned integer", Float: "floating-point",
	String: "string", Bytes: "[]byte", Bool: "bool", Time: "time.Time"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Numeric reports whether k is Int, Uint or Float.
func (k Kind) Numeric() bool { return k == Int || k == Uint || k == Float }

// Value is a typed literal.
type Value struct {
	Kind  Kind
	Int   int64
	Uint  uint64
	Float float64
	Str   string
	Bool  bool
	Time  time.Time
	err   error
}

// Of returns the literal of a Go value: a signed or unsigned integer, a
// float, a string, a []byte, a bool or a time.Time. NaN and other types
// give a Value whose error [Expr.Check] reports.
func Of(v any) Value {
	switch x := v.(type) {
	case int:
		return Value{Kind: Int, Int: int64(x)}
	case int8:
		return Value{Kind: Int, Int: int64(x)}
	case int16:
		return Value{Kind: Int, Int: int64(x)}
	case int32:
		return Value{Kind: Int, Int: int64(x)}
	case int64:
		return Value{Kind: Int, Int: x}
	case uint:
		return Value{Kind: Uint, Uint: uint64(x)}
	case uint8:
		return Value{Kind: Uint, Uint: uint64(x)}
	case uint16:
		return Value{Kind: Uint, Uint: uint64(x)}
	case uint32:
		return Value{Kind: Uint, Uint: uint64(x)}
	case uint64:
		return Value{Kind: Uint, Uint: x}
	case float32:
		return floatValue(float64(x))
	case float64:
		return floatValue(x)
	case string:
		return Value{Kind: String, Str: x}
	case []byte:
		return Value{Kind: Bytes, Str: string(x)}
	case bool:
		return Value{Kind: Bool, Bool: x}
	case time.Time:
		return Value{Kind: Time, Time: x}
	}
	return Value{err: fmt.Errorf("a literal of type %T", v)}
}

func floatValue(f float64) Value {
	v := Value{Kind: Float, Float: f}
	if math.IsNaN(f) {
		v.err = fmt.Errorf("a NaN literal, which nothing equals")
	}
	return v
}

// String returns the literal in the text form [Parse] reads.
func (v Value) String() string {
	switch v.Kind {
	case Int:
		return strconv.FormatInt(v.Int, 10)
	case Uint:
		return strconv.FormatUint(v.Uint, 10)
	case Float:
		s := strconv.FormatFloat(v.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0" // stays a float when parsed
		}
		return s
	case String:
		return quote(v.Str)
	case Bytes:
		return "x'" + hex.EncodeToString([]byte(v.Str)) + "'"
	case Bool:
		return strconv.FormatBool(v.Bool)
	case Time:
		t := v.Time
		if _, offset := t.Zone(); offset%60 != 0 {
			t = t.UTC() // RFC 3339 has no seconds in a zone offset
		}
		return "timestamp " + quote(t.Format(time.RFC3339Nano))
	}
	return "<bad literal>"
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Partition values: Hive directories hold text.

// ComparePartition compares the partition value s of column col, which
// is not null, with v: it returns the sign of (s - v), with s read as v's
// kind. Text that does not read as v's kind is an error.
func (v Value) ComparePartition(col, s string) (int, error) {
	bad := func() (int, error) {
		return 0, fmt.Errorf("partition value %s=%q cannot be compared with the %s %s", col, s, v.Kind, v)
	}
	switch v.Kind {
	case String, Bytes:
		return strings.Compare(s, v.Str), nil
	case Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad()
		}
		return CompareBool(b, v.Bool), nil
	case Time:
		t, ok := ParseTime(s)
		if !ok {
			return bad()
		}
		return t.Compare(v.Time), nil
	}
	c, ok := v.compareText(s)
	if !ok {
		return bad()
	}
	return c, nil
}

// compareText compares the decimal number s with the numeric literal v.
func (v Value) compareText(s string) (int, bool) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v.CompareInt(i), true
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return v.CompareUintWith(u), true
	}
	f, ok := Decimal(s, 64)
	if !ok {
		return 0, false
	}
	return v.CompareFloatWith(f), true
}

// CompareInt returns the sign of (x - v) for a numeric literal v.
func (v Value) CompareInt(x int64) int {
	switch v.Kind {
	case Int:
		return cmp.Compare(x, v.Int)
	case Uint:
		if x < 0 {
			return -1
		}
		return cmp.Compare(uint64(x), v.Uint)
	}
	return CompareIntFloat(x, v.Float)
}

// CompareUintWith returns the sign of (x - v) for a numeric literal v.
func (v Value) CompareUintWith(x uint64) int {
	switch v.Kind {
	case Int:
		if v.Int < 0 {
			return 1
		}
		return cmp.Compare(x, uint64(v.Int))
	case Uint:
		return cmp.Compare(x, v.Uint)
	}
	return CompareUintFloat(x, v.Float)
}

// CompareFloatWith returns the sign of (x - v) for a numeric literal v and
// an x that is not NaN; -0 equals +0.
func (v Value) CompareFloatWith(x float64) int {
	switch v.Kind {
	case Int:
		return -CompareIntFloat(v.Int, x)
	case Uint:
		return -CompareUintFloat(v.Uint, x)
	}
	return cmp.Compare(x, v.Float)
}

// CompareBool orders false before true.
func CompareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// CompareBytes compares byte strings as unsigned bytes.
func CompareBytes(a []byte, lit string) int { return bytes.Compare(a, []byte(lit)) }

// CompareIntFloat compares an integer with a number that is not NaN,
// exactly.
func CompareIntFloat(v int64, f float64) int {
	switch {
	case f >= 0x1p63:
		return -1
	case f < -0x1p63:
		return 1
	}
	t := math.Trunc(f)
	return cmpTruncated(cmp.Compare(v, int64(t)), f, t)
}

// CompareUintFloat compares an unsigned integer with a number that is not
// NaN, exactly.
func CompareUintFloat(v uint64, f float64) int {
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

// Decimal parses a decimal number such as "-1.5" or "2e3" (not "NaN",
// "Inf", hexadecimal or underscores) with the given precision, and fails
// if it is out of the precision's range.
func Decimal(s string, bits int) (float64, bool) {
	if s == "" || strings.Trim(s, "0123456789+-.eE") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, bits)
	return f, err == nil
}

// timeLayouts are the forms of time text read in partition values and in
// timestamp and date literals.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999", "2006-01-02"}

// ParseTime reads RFC 3339 text, or a date and time without a zone (UTC),
// with a space or a T between them, or a date alone (midnight UTC).
func ParseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
