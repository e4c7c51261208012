package pqwrite

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// Leaf describes one leaf column of the schema a [Writer] writes: what its
// [Column] must hold.
type Leaf struct {
	Index              int          // position among the leaf columns: the column chunk index in a row group
	Path               []string     // names from the root (excluded) to the leaf
	Kind               parquet.Kind // physical type
	MaxDefinitionLevel int          // 0 for a required leaf outside any optional or repeated group
	MaxRepetitionLevel int          // 0 unless the leaf is inside a repeated field
	// Unsigned is whether INT32 or INT64 values order as unsigned integers
	// (logical type INT(n, false) or converted type UINT_n), which the
	// statistics follow.
	Unsigned bool
	// Width is the length of a value of a FIXED_LEN_BYTE_ARRAY leaf, 12
	// for INT96, 0 otherwise.
	Width int
	// Decimal is whether a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY leaf holds
	// DECIMALs: big-endian two's complement integers, which order as
	// signed numbers, where other byte arrays order as unsigned bytes.
	Decimal bool
	// Encoding is the encoding of the values: PLAIN, or DELTA_BINARY_PACKED
	// for an INT32 or INT64 leaf whose schema node asks for it (as
	// parquet.Encoded(node, &parquet.DeltaBinaryPacked) does). Other
	// encodings a node asks for are not written: its values are PLAIN.
	Encoding format.Encoding
}

// PathString returns the path joined with dots.
func (l *Leaf) PathString() string { return strings.Join(l.Path, ".") }

// footerSchema is what a file's footer says of its schema.
type footerSchema struct {
	elements []format.SchemaElement
	orders   []format.ColumnOrder
	leaves   []Leaf
}

// schemaOf converts a schema to its footer form by writing an empty file
// with parquet-go and reading its footer back. That costs one small write
// per Writer, and gives, by construction, the schema elements (logical and
// converted types, field IDs, repetition) and column orders that
// parquet-go writes and reads, where a conversion of our own would have to
// follow parquet-go's every rule for them.
func schemaOf(schema *parquet.Schema) (*footerSchema, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[any](&buf, schema)
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("pqwrite: converting the schema: %w", err)
	}
	f, err := parquet.OpenFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, fmt.Errorf("pqwrite: converting the schema: %w", err)
	}
	md := f.Metadata()
	fs := &footerSchema{elements: md.Schema}
	var elems []*format.SchemaElement
	for i := range md.Schema[1:] {
		if e := &md.Schema[1+i]; e.NumChildren.V == 0 {
			elems = append(elems, e)
		}
	}
	cols := schema.Columns()
	if len(cols) != len(elems) {
		return nil, fmt.Errorf("pqwrite: %d leaf columns in the schema, %d in its footer", len(cols), len(elems))
	}
	for i, path := range cols {
		lc, _ := schema.Lookup(path...)
		l := Leaf{Index: i, Path: path, Kind: lc.Node.Type().Kind(),
			MaxDefinitionLevel: lc.MaxDefinitionLevel, MaxRepetitionLevel: lc.MaxRepetitionLevel,
			Unsigned: isUnsigned(elems[i]), Encoding: format.Plain}
		if enc := lc.Node.Encoding(); enc != nil && enc.Encoding() == format.DeltaBinaryPacked &&
			(l.Kind == parquet.Int32 || l.Kind == parquet.Int64) {
			l.Encoding = format.DeltaBinaryPacked
		}
		switch l.Kind {
		case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double, parquet.ByteArray:
		case parquet.FixedLenByteArray:
			if l.Width = lc.Node.Type().Length(); l.Width <= 0 {
				return nil, fmt.Errorf("pqwrite: column %s: FIXED_LEN_BYTE_ARRAY of length %d", l.PathString(), l.Width)
			}
		case parquet.Int96:
			l.Width = 12
		default:
			return nil, fmt.Errorf("pqwrite: column %s: physical type %v is not supported", l.PathString(), l.Kind)
		}
		l.Decimal = (l.Kind == parquet.ByteArray || l.Kind == parquet.FixedLenByteArray) && isDecimal(elems[i])
		if l.MaxDefinitionLevel > 127 || l.MaxRepetitionLevel > 127 {
			return nil, fmt.Errorf("pqwrite: column %s: nested too deep", l.PathString())
		}
		fs.leaves = append(fs.leaves, l)
		fs.orders = append(fs.orders, format.ColumnOrder{Value: &format.TypeDefinedOrder{}})
	}
	if len(md.ColumnOrders) == len(cols) {
		fs.orders = md.ColumnOrders
	}
	return fs, nil
}

// isDecimal reports whether a leaf holds DECIMALs.
func isDecimal(e *format.SchemaElement) bool {
	_, ok := e.LogicalType.Value.(*format.DecimalType)
	return ok || (e.ConvertedType.Valid && e.ConvertedType.V == deprecated.Decimal)
}

// isUnsigned reports whether a leaf's integers order as unsigned.
func isUnsigned(e *format.SchemaElement) bool {
	if it, ok := e.LogicalType.Value.(*format.IntType); ok {
		return !it.IsSigned
	}
	switch e.ConvertedType.V {
	case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
		return e.ConvertedType.Valid
	}
	return false
}
