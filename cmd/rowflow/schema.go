package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/internal/parquet/pqschema"
)

// scalarTypes are the column types -schema takes, by name.
var scalarTypes = map[string]func() parquet.Node{
	"bool":    func() parquet.Node { return parquet.Leaf(parquet.BooleanType) },
	"int32":   func() parquet.Node { return parquet.Int(32) },
	"int64":   func() parquet.Node { return parquet.Int(64) },
	"uint32":  func() parquet.Node { return parquet.Uint(32) },
	"uint64":  func() parquet.Node { return parquet.Uint(64) },
	"float32": func() parquet.Node { return parquet.Leaf(parquet.FloatType) },
	"float64": func() parquet.Node { return parquet.Leaf(parquet.DoubleType) },
	"string":  func() parquet.Node { return parquet.String() },
	"bytes":   func() parquet.Node { return parquet.Leaf(parquet.ByteArrayType) },
}

// parseSchema parses the text form of a schema: comma-separated
// name:type, where type is one of scalarTypes or a time or decimal type
// (see typedNode), or []type for a list of them. Every column and list
// element is optional.
func parseSchema(text string) (*parquet.Schema, error) {
	var cols []pqschema.Column
	seen := map[string]bool{}
	for _, col := range splitTopLevel(text) {
		name, typ, ok := strings.Cut(strings.TrimSpace(col), ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want name:type", col)
		}
		if seen[name] {
			return nil, fmt.Errorf("column %q given twice", name)
		}
		seen[name] = true
		elem, list := strings.CutPrefix(typ, "[]")
		leaf, err := typedNode(strings.TrimSpace(elem))
		if err != nil {
			return nil, fmt.Errorf("column %q: %v", name, err)
		}
		node := parquet.Optional(leaf)
		if list {
			node = parquet.Optional(parquet.List(node))
		}
		cols = append(cols, pqschema.Column{Name: name, Node: node})
	}
	return pqschema.New("record", cols...), nil
}

// splitTopLevel splits text at the commas outside brackets and
// parentheses, which types such as timestamp[us, tz] and decimal(10,2)
// hold.
func splitTopLevel(text string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range text {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, text[start:i])
				start = i + 1
			}
		}
	}
	return append(out, text[start:])
}

// typedNode returns the node of a -schema type: a scalar type, or
//
//   - timestamp, timestamp[ms|us|ns], timestamp[ms|us|ns, tz] (or
//     timestamp[tz]): a TIMESTAMP of that unit (default us), adjusted to
//     UTC with tz (instants) and not without (wall clocks);
//   - date: a DATE (days);
//   - time, time[ms|us|ns]: a TIME of day, not adjusted to UTC;
//   - decimal(p,s): a DECIMAL of precision p (1 to 38) and scale s (0 to
//     p), stored as INT32 up to 9 digits, INT64 up to 18, and fixed-length
//     bytes above, as Spark and DuckDB write them.
func typedNode(typ string) (parquet.Node, error) {
	if mk, ok := scalarTypes[typ]; ok {
		return mk(), nil
	}
	units := map[string]parquet.TimeUnit{"ms": parquet.Millisecond, "us": parquet.Microsecond, "ns": parquet.Nanosecond}
	unitOf := func(arg string) (parquet.TimeUnit, bool, error) {
		unit, tz := parquet.TimeUnit(parquet.Microsecond), false
		if arg == "" {
			return unit, tz, nil
		}
		for _, a := range strings.Split(arg, ",") {
			switch a = strings.TrimSpace(a); {
			case a == "tz":
				tz = true
			case units[a] != nil:
				unit = units[a]
			default:
				return nil, false, fmt.Errorf("%q: want ms, us or ns, and tz", a)
			}
		}
		return unit, tz, nil
	}
	switch base, arg, hasArg := cutArg(typ); {
	case base == "timestamp":
		unit, tz, err := unitOf(arg)
		if err != nil {
			return nil, fmt.Errorf("type %q: %v", typ, err)
		}
		return parquet.TimestampAdjusted(unit, tz), nil
	case base == "date" && !hasArg:
		return parquet.Date(), nil
	case base == "time":
		unit, tz, err := unitOf(arg)
		if err != nil || tz {
			return nil, fmt.Errorf("type %q: want time, or time[ms|us|ns] (a time of day has no time zone)", typ)
		}
		return parquet.TimeAdjusted(unit, false), nil
	case base == "decimal" && hasArg:
		var p, s int
		if n, err := fmt.Sscanf(strings.ReplaceAll(arg, " ", ""), "%d,%d", &p, &s); n != 2 || err != nil || p < 1 || p > 38 || s < 0 || s > p {
			return nil, fmt.Errorf("type %q: want decimal(p,s) with p from 1 to 38 and s from 0 to p", typ)
		}
		switch {
		case p <= 9:
			return parquet.Decimal(s, p, parquet.Int32Type), nil
		case p <= 18:
			return parquet.Decimal(s, p, parquet.Int64Type), nil
		}
		return parquet.Decimal(s, p, parquet.FixedLenByteArrayType(decimalBytes(p))), nil
	}
	return nil, fmt.Errorf("unknown type %q; want one of bool, int32, int64, uint32, uint64, float32, float64, string, bytes, timestamp[unit, tz], date, time[unit], decimal(p,s), or [] and one of them", typ)
}

// cutArg splits "base[arg]" or "base(arg)" into base and arg.
func cutArg(typ string) (base, arg string, ok bool) {
	i := strings.IndexAny(typ, "[(")
	if i < 0 {
		return typ, "", false
	}
	closing := map[byte]byte{'[': ']', '(': ')'}[typ[i]]
	if typ[len(typ)-1] != closing {
		return typ, "", false
	}
	return typ[:i], typ[i+1 : len(typ)-1], true
}

// decimalBytes returns the fewest bytes whose two's complement holds
// every unscaled value of p digits.
func decimalBytes(p int) int {
	n := 1
	for ; n < 32; n++ {
		// 10^p - 1 must fit in 8n-1 bits.
		if float64(p) <= float64(8*n-1)*math.Log10(2) {
			break
		}
	}
	return n
}
