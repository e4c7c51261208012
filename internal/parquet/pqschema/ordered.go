// Package pqschema builds Parquet schemas whose top-level columns keep
// the order they are given in. parquet-go's Group is a map, and orders its
// fields by name; a dataset resharded from records should keep its
// columns where the input had them. It also tells text columns from
// other byte arrays (IsText).
package pqschema

import (
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

// Column is one top-level column: its name and its node (a leaf, a LIST,
// optional or not).
type Column struct {
	Name string
	Node parquet.Node
}

// New returns the schema named name whose columns are cols, in order.
// parquet-go's Schema.Deconstruct reads rows of it from Go maps keyed by
// column name (map[string]any) through the fields' Value; it gets the
// levels of lists of lists held as []any wrong, which is why
// shards.Parquet of records builds its rows itself.
func New(name string, cols ...Column) *parquet.Schema {
	g := make(group, len(cols))
	for i, c := range cols {
		g[i] = field{Node: c.Node, name: c.Name}
	}
	return parquet.NewSchema(name, g)
}

// Columns returns the top-level columns of s, in order.
func Columns(s *parquet.Schema) []Column {
	var cols []Column
	for _, f := range s.Fields() {
		cols = append(cols, Column{Name: f.Name(), Node: unwrap(f)})
	}
	return cols
}

// unwrap returns the node of a field without its name.
func unwrap(f parquet.Field) parquet.Node {
	if o, ok := f.(field); ok {
		return o.Node
	}
	return f
}

// field is a named node whose value is read from a map[string]any.
type field struct {
	parquet.Node
	name string
}

func (f field) Name() string { return f.name }

func (f field) Value(base reflect.Value) reflect.Value {
	for base.Kind() == reflect.Interface || base.Kind() == reflect.Pointer {
		if base.IsNil() {
			return reflect.Value{}
		}
		base = base.Elem()
	}
	if base.Kind() != reflect.Map {
		return reflect.Value{}
	}
	return base.MapIndex(reflect.ValueOf(f.name))
}

// group is a group node whose fields keep their order.
type group []parquet.Field

func (g group) ID() int                     { return 0 }
func (g group) String() string              { return parquet.NewSchema("", g).String() }
func (g group) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g group) Optional() bool              { return false }
func (g group) Repeated() bool              { return false }
func (g group) Required() bool              { return true }
func (g group) Leaf() bool                  { return false }
func (g group) Fields() []parquet.Field     { return g }
func (g group) Encoding() encoding.Encoding { return nil }
func (g group) Compression() compress.Codec { return nil }
func (g group) GoType() reflect.Type        { return reflect.TypeFor[map[string]any]() }
