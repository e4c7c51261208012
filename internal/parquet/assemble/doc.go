// Package assemble turns decoded Parquet columns into Go structs.
//
// A [Plan] maps the fields of a struct type to the leaf columns of one
// file's schema, once per file, with reflection; a [Decoder] then fills
// slices of the struct from [pqcol.Column] buffers with one typed loop per
// field and chunk, writing fields in place through their offsets. Nothing is
// reflected or boxed per row.
//
// # Fields
//
// A field takes the column named by its `parquet` tag (the part before the
// first comma), or its Go name; `parquet:"-"` and unexported fields are
// left alone. Supported fields:
//
//   - bool, integers, floats, string and []byte, from the columns whose
//     every value they hold (the table in kinds.go): an INT64 column into
//     int64, or uint64 if its logical type is unsigned; a signed INT32
//     into int32 or wider signed integers; float64 from FLOAT or DOUBLE;
//   - time.Time from a TIMESTAMP, a DATE or an INT96 timestamp (times.go);
//   - decimal.Decimal (github.com/shopspring/decimal) from a DECIMAL of
//     any physical type, exactly, at the column's scale (decimal.go);
//   - a pointer to one of these, nil where the value is null;
//   - a slice of one of these from a repeated column or a LIST of them
//     (one level of repetition).
//
// A null read into a field that is not a pointer leaves the zero value, as
// parquet-go's GenericReader does. Strings, byte slices and list slices of
// one chunk share one allocation: a chunk of rows costs a handful of
// allocations, not one per value. Slices are capped, so appending to one
// never writes into another row's values.
//
// A field that does not hold every value of its column (an INT64 column
// into an int32 field, a signed column into an unsigned field) is refused
// when the plan is made, with an error naming the file, the column, its
// type and the field: no value is truncated or reinterpreted.
//
// Besides file columns, a field may take a constant per fragment: a
// Hive-partition value or a trace value (see [Const]).
package assemble
