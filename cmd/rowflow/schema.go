package main

import (
	"fmt"
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
// name:type, where type is one of scalarTypes, or []type for a list of
// them. Every column and list element is optional.
func parseSchema(text string) (*parquet.Schema, error) {
	var cols []pqschema.Column
	seen := map[string]bool{}
	for _, col := range strings.Split(text, ",") {
		name, typ, ok := strings.Cut(strings.TrimSpace(col), ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want name:type", col)
		}
		if seen[name] {
			return nil, fmt.Errorf("column %q given twice", name)
		}
		seen[name] = true
		elem, list := strings.CutPrefix(typ, "[]")
		mk, ok := scalarTypes[elem]
		if !ok {
			return nil, fmt.Errorf("column %q: unknown type %q; want one of bool, int32, int64, uint32, uint64, float32, float64, string, bytes, or [] and one of them", name, typ)
		}
		node := parquet.Optional(mk())
		if list {
			node = parquet.Optional(parquet.List(node))
		}
		cols = append(cols, pqschema.Column{Name: name, Node: node})
	}
	return pqschema.New("record", cols...), nil
}
