package main

import (
	"math/big"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/sources"
)

// logicalText returns the text of v, a raw value of a column of type t
// (as a Parquet record holds it: an int32, an int64 or bytes), when t's
// logical type is a timestamp, a date, a time of day or a decimal, and
// true; or false for other types and values. Timestamps are RFC 3339,
// with Z when adjusted to UTC; decimals are exact.
func logicalText(t parquet.Type, v any) (string, bool) {
	lt := t.LogicalType()
	if lt == nil || v == nil {
		return "", false
	}
	n, isInt := rawInt(v)
	switch l := lt.Value.(type) {
	case *pqformat.TimestampType:
		if !isInt {
			return "", false
		}
		var tm time.Time
		switch pqschema.UnitNanos(l.Unit) {
		case 1:
			tm = time.Unix(0, n)
		case 1e3:
			tm = time.UnixMicro(n)
		default:
			tm = time.UnixMilli(n)
		}
		s := tm.UTC().Format("2006-01-02T15:04:05.999999999")
		if l.IsAdjustedToUTC {
			s += "Z"
		}
		return s, true
	case *pqformat.DateType:
		if !isInt {
			return "", false
		}
		return time.Unix(n*86400, 0).UTC().Format("2006-01-02"), true
	case *pqformat.TimeType:
		if !isInt {
			return "", false
		}
		d := time.Duration(n * pqschema.UnitNanos(l.Unit))
		return time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Add(d).Format("15:04:05.999999999"), true
	case *pqformat.DecimalType:
		u := new(big.Int)
		switch {
		case isInt:
			u.SetInt64(n)
		default:
			b, ok := v.([]byte)
			if !ok {
				return "", false
			}
			u.SetBytes(b)
			if len(b) > 0 && b[0]&0x80 != 0 { // negative: two's complement
				u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
		}
		return decimalText(u, int(l.Scale)), true
	}
	return "", false
}

// rawInt returns an integer value of a record as an int64.
func rawInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// decimalText writes the unscaled value u with scale digits after the
// point.
func decimalText(u *big.Int, scale int) string {
	s := new(big.Int).Abs(u).String()
	if scale > 0 {
		if len(s) <= scale {
			s = strings.Repeat("0", scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if u.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// logicalColumns returns the top-level leaf columns of s whose logical
// type logicalText writes, by name.
func logicalColumns(s *parquet.Schema) map[string]parquet.Type {
	cols := map[string]parquet.Type{}
	for _, c := range pqschema.Columns(s) {
		if !c.Node.Leaf() || c.Node.Repeated() {
			continue
		}
		if _, ok := logicalText(c.Node.Type(), int64(0)); ok {
			cols[c.Name] = c.Node.Type()
		} else if _, ok := logicalText(c.Node.Type(), []byte{0}); ok {
			cols[c.Name] = c.Node.Type()
		}
	}
	return cols
}

// withLogicalText returns rows with the values of the columns in cols
// as their text (logicalText); the rows themselves are not changed.
func withLogicalText(rows []sources.Record, cols map[string]parquet.Type) []sources.Record {
	if len(cols) == 0 {
		return rows
	}
	out := make([]sources.Record, len(rows))
	for i, r := range rows {
		vals := append([]any(nil), r.Values...)
		for j, name := range r.Names {
			if t, ok := cols[name]; ok && j < len(vals) {
				if s, ok := logicalText(t, vals[j]); ok {
					vals[j] = s
				}
			}
		}
		out[i] = sources.Record{Names: r.Names, Values: vals}
	}
	return out
}
