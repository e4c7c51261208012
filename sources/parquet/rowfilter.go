package parquet

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/sources"
)

// RowFilter makes a Parquet source pass on only the rows that f keeps,
// comparing the values of file columns with f's literals. Row groups, and
// pages where the file has a page index, whose statistics show that no
// row can match are skipped without being read; the remaining rows are
// tested one by one. Given more than once, the filters are combined with
// [sources.And].
//
// # Columns and literals
//
// A filter names file columns by their user names: dotted leaf paths,
// after [Rename] (as [sources.Where] names Hive partition columns, after Rename
// too). The columns need not be among those the source returns:
// they are read for the filter, and not returned. Each literal must have a
// type that compares with its column's:
//
//   - INT32 and INT64 (signed or unsigned, by their logical type), FLOAT
//     and DOUBLE: any integer or float literal, compared exactly (a float
//     literal is first rounded to a FLOAT column's precision, so that 0.1
//     equals a FLOAT 0.1);
//   - BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: a string or a []byte, compared
//     byte-wise as unsigned (for UTF-8 strings, the order of code points);
//   - BOOLEAN: a bool; false < true;
//   - DATE (INT32) and TIMESTAMP (INT64, in milliseconds, microseconds or
//     nanoseconds): a time.Time, compared exactly (a timestamp that is not
//     adjusted to UTC compares as if it were); an integer literal compares
//     with the stored day or unit count.
//
// Each file is checked when it is opened: a column the file lacks (or
// that is one of its Hive partition columns, by its name after Rename,
// which [sources.Where] filters), a repeated column, a column of a type that
// cannot be compared this way (INT96, DECIMAL, FLOAT16, INTERVAL) or a
// literal whose type does not compare with the column's fails the run
// with an error naming the file, the column and both types. (With
// [sources.SkipBad] such a file is skipped and reported, like a file
// whose footer fails.)
//
// # Nulls
//
// A filter follows SQL's three-valued logic (see [sources.Expr]); a
// floating-point NaN in a column compares like a null. A row is kept only
// when the filter is true: both Eq("x", 1) and Not(Eq("x", 1)) drop the
// rows where x is null, and Or(Eq("x", 1), Not(Eq("x", 1))) keeps exactly
// the rows where x is not null.
//
// # Pruning
//
// Before a fragment is read, the filter is evaluated on the statistics in
// the file's footer of each row group it covers: the bounds (min_value,
// max_value) and null count of each column chunk the filter names, giving
// for each comparison whether some row may make it true and whether some
// row may make it false. A row group where the filter cannot be true is
// not read at all. Bounds are used as the file states them, in the order
// its column_orders field declares (none declared means the type's order);
// the deprecated min and max fields of older writers are used only for
// signed numeric columns, since they were computed with signed byte
// comparisons; bounds that are NaN, or a minimum above the maximum, are
// ignored.
//
// In the row groups that remain, the page index narrows the rows further
// where the file has one (a column index and an offset index for a
// filter column, as most writers produce). The fragment's rows are cut at
// the page boundaries of every filter column, and the filter is evaluated
// on each piece in the same way, with the statistics of the pages that
// hold it: their bounds, by the rules above, and whether they hold only
// nulls. A filter column without a page index gives each piece its column
// chunk's statistics. Only the pieces where the filter may be true are
// read, in every column: the pages of the others are not read, nor
// decompressed, in the columns that have an offset index (a column
// without one skips the pages before each piece by reading them, as when
// a fragment starts inside a row group). A maximum of only 0xff bytes in a column index is ignored, since
// a writer that truncates long bounds cannot round it up; so is a column
// index that says a page of a column of required fields holds only nulls,
// as parquet-mr 1.13 wrote for pages without statistics (the column
// chunk's statistics, if any, are used instead). A page index
// that cannot be read, lies outside the file or disagrees with itself or
// its column chunk otherwise fails the fragment, as other corrupt data
// does.
//
// # What is returned
//
// [Read] of structs and of records drops the rows that do not match and
// keeps the IDs of the others (still their ordinals in their file),
// filling chunks of up to [sources.ChunkSize] kept rows. Read of column
// batches keeps the rows in its batches and marks those that match in
// [ColumnBatch.Keep]; it
// returns no batch for a span of rows none of which match. A chunk or a
// batch holds rows of one row group, and of one piece where the page
// index cuts it, so a partition may have several chunks shorter than
// ChunkSize. A partition none of whose rows match still ends, so the
// ordered merge never waits for it. What is returned is the same at every
// parallelism.
//
// # Costs
//
// The filter's columns are read first; the other columns of a span of
// rows are read only if some of its rows match, and then whole. The page
// index of a filter column's chunk is read when a fragment of its row
// group is first read, and kept while the file is open; cutting a
// fragment into pieces costs a pass over its filter columns' pages, and
// reading a piece starts with the dictionary page of each column that has
// one. [Read] of structs decodes the rows that do not match too (up to
// the last that does) and leaves them out of its chunks; Read of records
// skips them before building any value. Testing a row costs a few nanoseconds
// per comparison.
func RowFilter(f sources.Expr) Option {
	return option(func(c *parquetConfig) error {
		e := linkage.FilterExpr(f)
		if err := e.Check(); err != nil {
			return fmt.Errorf("sources: RowFilter(%v): %w", f, err)
		}
		c.rowFilter = filter.Also(c.rowFilter, e)
		return nil
	})
}
