package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/text/texttime"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// inferSample is how many records schema inference reads: the first of
// the dataset, in path order.
const inferSample = 10000

// inferredColumn is what inference found of one column.
type inferredColumn struct {
	name     string
	typ      string // a -schema type, "" while only nulls were seen
	nullable bool
}

// errNoRecords is inferSchema's error for a dataset without records.
var errNoRecords = errors.New("no records to infer a schema from")

// inferSchema reads the first records of the text dataset at path (with
// in's -rename and -columns) and returns the -schema of their columns, as
// DuckDB's sniffer does: for each column the narrowest type of bool,
// int64, float64, date, time, timestamp (with tz when values carry a
// zone), string, or a list of one of them (JSON arrays), that holds
// every value seen. A column of nulls only is a string. Values past the
// sample that do not fit fail the run, naming their row, as with a
// -schema given by hand.
func inferSchema(ctx context.Context, in input, path string) ([]inferredColumn, error) {
	sample := in
	sample.parallel, sample.window, sample.badLines = 1, 0, new(sources.SkipReport)
	p, err := sample.pipeline(path)
	if err != nil {
		return nil, err
	}
	var cols []*inferredColumn
	index := map[string]int{}
	n := 0
	for r, err := range flow.Values[sources.Record](ctx, p.Via(operators.Take[sources.Record](inferSample))) {
		if err != nil {
			return nil, err
		}
		n++
		for i, name := range r.Names {
			j, ok := index[name]
			if !ok {
				j = len(cols)
				index[name] = j
				cols = append(cols, &inferredColumn{name: name, nullable: n > 1})
			}
			c := cols[j]
			var v any
			if i < len(r.Values) {
				v = r.Values[i]
			}
			t, err := valueType(v)
			if err != nil {
				return nil, fmt.Errorf("%s: column %q: %v", path, name, err)
			}
			if t == "" {
				c.nullable = true
				continue
			}
			if c.typ, err = widen(c.typ, t); err != nil {
				return nil, fmt.Errorf("%s: column %q: %v", path, name, err)
			}
		}
		for _, c := range cols {
			if _, ok := index[c.name]; ok && !hasName(r.Names, c.name) {
				c.nullable = true // a JSON line without the key
			}
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: %w", path, errNoRecords)
	}
	out := make([]inferredColumn, len(cols))
	for i, c := range cols {
		if strings.ContainsAny(c.name, ",:") {
			return nil, fmt.Errorf("%s: column %q: a name with ',' or ':' cannot be said in -schema; rename it with -rename", path, c.name)
		}
		out[i] = *c
		if out[i].typ == "" {
			out[i].typ = "string"
		}
	}
	return out, nil
}

func hasName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// schemaText returns the -schema text of cols.
func schemaText(cols []inferredColumn) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.name + ":" + c.typ
	}
	return strings.Join(parts, ",")
}

// valueType returns the narrowest -schema type of one value of a text
// record: "" for null.
func valueType(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case bool:
		return "bool", nil
	case json.Number:
		if _, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return "int64", nil
		}
		return "float64", nil
	case string:
		return textType(x), nil
	case []any:
		elem := ""
		for _, e := range x {
			t, err := valueType(e)
			if err != nil {
				return "", err
			}
			if strings.HasPrefix(t, "[]") {
				return "", fmt.Errorf("a list of lists cannot be said in -schema")
			}
			if t != "" {
				if elem, err = widen(elem, t); err != nil {
					return "", err
				}
			}
		}
		if elem == "" {
			elem = "string"
		}
		return "[]" + elem, nil
	case map[string]any:
		return "", fmt.Errorf("a JSON object cannot be said in -schema")
	}
	return "", fmt.Errorf("a value of type %T", v)
}

// textType returns the narrowest type of a text value, as it is written
// in CSV or a JSON string.
func textType(s string) string {
	switch {
	case s == "true" || s == "false" || s == "TRUE" || s == "FALSE" || s == "True" || s == "False":
		return "bool"
	case isInt(s):
		return "int64"
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !strings.ContainsAny(s, "xXpP_") && !leadingZero(s) {
		return "float64"
	}
	if _, ok := texttime.Date(s); ok {
		return "date"
	}
	if _, ok := texttime.TimeOfDay(s); ok {
		return "time"
	}
	if _, zone, ok := texttime.Timestamp(s); ok {
		if zone {
			return "timestamp[us, tz]"
		}
		return "timestamp"
	}
	return "string"
}

// isInt reports whether s is a base-10 integer that fits an int64,
// without leading zeros (an identifier such as a zip code "00501" stays
// text).
func isInt(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if len(digits) > 1 && digits[0] == '0' {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// leadingZero reports whether the integer part of a number has a zero
// that is not its only digit ("007.5").
func leadingZero(s string) bool {
	digits := strings.TrimLeft(s, "+-")
	whole, _, _ := strings.Cut(digits, ".")
	return len(whole) > 1 && whole[0] == '0'
}

// widen returns the narrowest type that holds values of types a and b
// ("" is no type yet): int64 widens to float64, date to timestamp, and
// anything else that differs to string; a list and a scalar do not mix.
func widen(a, b string) (string, error) {
	switch {
	case a == "" || a == b:
		return b, nil
	case strings.HasPrefix(a, "[]") != strings.HasPrefix(b, "[]"):
		return "", fmt.Errorf("lists and values that are not lists in one column")
	case strings.HasPrefix(a, "[]"):
		e, err := widen(a[2:], b[2:])
		return "[]" + e, err
	}
	pair := map[[2]string]string{
		{"int64", "float64"}:               "float64",
		{"date", "timestamp"}:              "timestamp",
		{"date", "timestamp[us, tz]"}:      "timestamp[us, tz]",
		{"timestamp", "timestamp[us, tz]"}: "string",
	}
	if t, ok := pair[[2]string{a, b}]; ok {
		return t, nil
	}
	if t, ok := pair[[2]string{b, a}]; ok {
		return t, nil
	}
	return "string", nil
}
