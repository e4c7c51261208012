package pqcol

import (
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Leaf describes one leaf column of a file's schema: what a [Column] buffer
// holds after it is read. Logical types (strings, dates, decimals,
// timestamps, lists, maps) are not applied; callers interpret the physical
// values through Node.
type Leaf struct {
	Index              int          // position among the leaf columns, the column chunk index in a row group
	Path               []string     // names from the root (excluded) to the leaf
	Node               parquet.Node // the parquet-go schema node: logical type, repetition
	Kind               parquet.Kind // physical type, from the file's schema; -1 if the schema's is invalid
	TypeLength         int          // byte width of FIXED_LEN_BYTE_ARRAY values, else 0
	MaxDefinitionLevel int          // 0 for a required leaf outside any optional or repeated group
	MaxRepetitionLevel int          // 0 unless the leaf is inside a repeated field
	// RepeatedLevels holds, for each repeated field on the path from the
	// root (outermost first, one per repetition level), the definition
	// level from which that field has an element: an entry whose
	// definition level is lower leaves the list at that depth null or
	// empty.
	RepeatedLevels []int
}

// PathString returns the path joined with dots.
func (l *Leaf) PathString() string { return strings.Join(l.Path, ".") }

// leavesOf lists the leaf columns of f in column chunk order, with, for
// each leaf whose schema element is unusable, the error that reading it will
// return. The physical type comes from the flattened schema elements
// (parquet-go maps some logical types, such as NULL, to a node without a
// physical kind); the levels and the node come from parquet-go's column tree.
func leavesOf(f *parquet.File) ([]Leaf, []error, error) {
	var leaves []Leaf
	var walk func(c *parquet.Column, def int, reps []int)
	walk = func(c *parquet.Column, def int, reps []int) {
		if c.Optional() || c.Repeated() {
			def++
		}
		if c.Repeated() {
			reps = append(reps[:len(reps):len(reps)], def)
		}
		if c.Leaf() {
			leaves = append(leaves, Leaf{
				Index:              c.Index(),
				Path:               c.Path(),
				Node:               c,
				Kind:               -1,
				MaxDefinitionLevel: c.MaxDefinitionLevel(),
				MaxRepetitionLevel: c.MaxRepetitionLevel(),
				RepeatedLevels:     reps,
			})
			return
		}
		for _, child := range c.Columns() {
			walk(child, def, reps)
		}
	}
	for _, child := range f.Root().Columns() {
		walk(child, 0, nil)
	}

	elements := leafElements(f.Metadata().Schema)
	if len(elements) != len(leaves) {
		return nil, nil, corruptf("the schema has %d leaf elements but parquet-go found %d leaf columns", len(elements), len(leaves))
	}
	errs := make([]error, len(leaves))
	for i := range leaves {
		l := &leaves[i]
		if l.Index != i {
			return nil, nil, corruptf("leaf column %q has index %d, want %d", l.PathString(), l.Index, i)
		}
		errs[i] = l.setType(elements[i])
	}
	return leaves, errs, nil
}

// setType sets the physical type from the leaf's schema element.
func (l *Leaf) setType(e *format.SchemaElement) error {
	if !e.Type.Valid || e.Type.V < format.Boolean || e.Type.V > format.FixedLenByteArray {
		return corruptf("the schema gives the column an invalid physical type (%d)", int(e.Type.V))
	}
	l.Kind = parquet.Kind(e.Type.V)
	if l.Kind == parquet.FixedLenByteArray {
		if !e.TypeLength.Valid || e.TypeLength.V <= 0 {
			return corruptf("invalid FIXED_LEN_BYTE_ARRAY length %d", e.TypeLength.V)
		}
		l.TypeLength = int(e.TypeLength.V)
	}
	if l.MaxDefinitionLevel > 255 || l.MaxRepetitionLevel > 255 {
		return unsupportedf("nesting deeper than 255 levels")
	}
	if len(l.RepeatedLevels) != l.MaxRepetitionLevel {
		return corruptf("the schema path has %d repeated fields but the column %d levels of repetition", len(l.RepeatedLevels), l.MaxRepetitionLevel)
	}
	return nil
}

// leafElements returns the schema elements without children, in order. The
// flattened schema lists elements depth first, so this is leaf column order.
func leafElements(schema []format.SchemaElement) []*format.SchemaElement {
	var out []*format.SchemaElement
	for i := 1; i < len(schema); i++ {
		if !schema[i].NumChildren.Valid || schema[i].NumChildren.V == 0 {
			out = append(out, &schema[i])
		}
	}
	return out
}
