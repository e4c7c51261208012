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
//   - bool; int, int8…int64, uint, uint8…uint64 from INT32 or INT64 columns
//     (and BOOLEAN for bool); float32 from FLOAT, float64 from FLOAT or
//     DOUBLE; string and []byte from BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY;
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
// Narrowing conversions (an INT64 column into an int32 field) are checked
// per value and fail with an error naming the column and row.
//
// Besides file columns, a field may take a constant per fragment: a
// Hive-partition value or a trace value (see [Const]).
package assemble
