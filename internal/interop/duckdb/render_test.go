package duckdb

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Values are compared as canonical text: rowflow's records hold physical
// values (logical types not applied) and DuckDB's driver returns logical
// ones, so each side renders its values through the leaf's logical type.
// A null and an empty list render alike, as rowflow reads them alike.

const null = "∅"

// leafKind is how a leaf's values render: its logical type, as the file's
// schema gives it.
type leafKind struct {
	name  string // int, uint, float, string, bytes, bool, decimal, date, timestamp, time, uuid, interval
	scale int    // decimal digits after the point
	unit  int64  // nanoseconds per unit, for timestamp and time
}

func kindOf(leaf pqcol.Leaf) leafKind {
	t := leaf.Node.Type().String()
	unit := int64(1000)
	switch {
	case strings.Contains(t, "MILLIS"):
		unit = 1e6
	case strings.Contains(t, "NANOS"):
		unit = 1
	}
	switch {
	case strings.HasPrefix(t, "INT(") && strings.HasSuffix(t, "false)"):
		return leafKind{name: "uint"}
	case strings.HasPrefix(t, "DECIMAL("):
		var p, s int
		fmt.Sscanf(t, "DECIMAL(%d,%d)", &p, &s)
		return leafKind{name: "decimal", scale: s}
	case t == "DATE":
		return leafKind{name: "date"}
	case strings.HasPrefix(t, "TIMESTAMP("):
		return leafKind{name: "timestamp", unit: unit}
	case strings.HasPrefix(t, "TIME("):
		return leafKind{name: "time", unit: unit}
	case t == "UUID":
		return leafKind{name: "uuid"}
	case t == "INTERVAL":
		return leafKind{name: "interval"}
	case t == "STRING" || t == "ENUM":
		return leafKind{name: "string"}
	}
	switch leaf.Kind.String() {
	case "BOOLEAN":
		return leafKind{name: "bool"}
	case "FLOAT", "DOUBLE":
		return leafKind{name: "float"}
	case "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY":
		return leafKind{name: "bytes"}
	}
	return leafKind{name: "int"}
}

// renderList renders a list, or null for nil and empty lists.
func renderList(v []any, elem func(any) string) string {
	if len(v) == 0 {
		return null
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = elem(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// renderShared renders the values that both sides hold alike: nulls,
// lists (whose elements render with elem), booleans, floats and strings.
func renderShared(v any, elem func(any) string) (string, bool) {
	switch x := v.(type) {
	case nil:
		return null, true
	case []any:
		return renderList(x, elem), true
	case bool:
		return strconv.FormatBool(x), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case string:
		return strconv.Quote(x), true
	}
	return "", false
}

// renderRowflow renders a value of a rowflow record.
func renderRowflow(v any, k leafKind) string {
	if s, ok := renderShared(v, func(e any) string { return renderRowflow(e, k) }); ok {
		return s
	}
	switch x := v.(type) {
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case int32:
		return renderInt(int64(x), k, 32)
	case int64:
		return renderInt(x, k, 64)
	case []byte:
		switch k.name {
		case "decimal":
			return renderDecimal(twosComplement(x), k.scale)
		case "interval":
			if len(x) != 12 {
				return "bad interval " + hex.EncodeToString(x)
			}
			return fmt.Sprintf("%d/%d/%d", binary.LittleEndian.Uint32(x), binary.LittleEndian.Uint32(x[4:]), binary.LittleEndian.Uint32(x[8:]))
		}
		return hex.EncodeToString(x)
	}
	return fmt.Sprintf("unexpected %T", v)
}

func renderInt(v int64, k leafKind, bits int) string {
	switch k.name {
	case "uint":
		if bits == 32 {
			return strconv.FormatUint(uint64(uint32(v)), 10)
		}
		return strconv.FormatUint(uint64(v), 10)
	case "decimal":
		return renderDecimal(big.NewInt(v), k.scale)
	case "date":
		return strconv.FormatInt(v, 10)
	case "timestamp":
		return renderInstant(v, k.unit)
	case "time":
		return strconv.FormatInt(v*k.unit, 10)
	}
	return strconv.FormatInt(v, 10)
}

// renderInstant renders v units since the epoch as seconds and
// nanoseconds.
func renderInstant(v, unit int64) string {
	perSec := 1e9 / unit
	sec, frac := v/perSec, v%perSec
	if frac < 0 {
		sec, frac = sec-1, frac+perSec
	}
	return fmt.Sprintf("%d.%09d", sec, frac*unit)
}

func twosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

func renderDecimal(v *big.Int, scale int) string {
	s := new(big.Int).Abs(v).String()
	if scale > 0 {
		s = strings.Repeat("0", max(0, scale+1-len(s))) + s
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if v.Sign() < 0 {
		s = "-" + s
	}
	return s
}

// renderDuckDB renders a value scanned from DuckDB.
func renderDuckDB(v any, k leafKind) string {
	if s, ok := renderShared(v, func(e any) string { return renderDuckDB(e, k) }); ok {
		return s
	}
	switch x := v.(type) {
	case []byte:
		return hex.EncodeToString(x)
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x)
	case duckdb.Decimal:
		return renderDecimal(x.Value, k.scale)
	case duckdb.Interval:
		return fmt.Sprintf("%d/%d/%d", x.Months, x.Days, x.Micros/1000)
	case time.Time:
		switch k.name {
		case "date":
			return strconv.FormatInt(x.Unix()/86400, 10)
		case "time":
			h, m, s := x.Clock()
			return strconv.FormatInt(((int64(h)*60+int64(m))*60+int64(s))*1e9+int64(x.Nanosecond()), 10)
		}
		return fmt.Sprintf("%d.%09d", x.Unix(), x.Nanosecond())
	}
	return fmt.Sprintf("unexpected %T", v)
}
