package pqcol

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// OffsetIndex returns the offset index of the column chunk of leaf column
// `column` in row group `rowGroup`: the file offset, stored size and first
// row of each data page. It returns nil, nil if the chunk has none.
//
// The index is read from the file on the first call and kept; later calls
// return the same value, which the caller must not modify. Before it is
// decoded, its byte range is checked against the file's size and its
// thrift encoding is walked as the footer's is (see "Safety" in the
// package documentation), so that a few bytes cannot claim a huge list.
// It is then checked against the chunk: pages in file order within the
// chunk's bytes, the first starting at row 0, first rows never decreasing
// and within the row group. [Reader.ReadColumnRange] does not use an index
// that fails, and scans the chunk's pages instead.
//
// An error is an [*Error] naming the file, row group and column, whose
// cause is [ErrArgument] (no such row group or column), [ErrUnsupported]
// (an encrypted chunk), [ErrCorrupt] (an index that fails the checks), an
// I/O error, or ctx's error: ctx is checked before anything is read.
func (r *Reader) OffsetIndex(ctx context.Context, rowGroup, column int) (index *format.OffsetIndex, err error) {
	e, err := r.indexArgs(ctx, rowGroup, column)
	if err != nil {
		return nil, err
	}
	slot := &r.indexes[rowGroup*len(r.leaves)+column]
	if index := slot.Load(); index != nil {
		return index, nil
	}
	defer e.recoverInto(&err)
	meta := &r.file.Metadata().RowGroups[rowGroup]
	cc := &meta.Columns[column]
	index = new(format.OffsetIndex)
	found, err := r.readIndex(cc.OffsetIndexOffset, cc.OffsetIndexLength, index)
	if err != nil || !found {
		return nil, e.wrap(err, "offset index")
	}
	start, end, err := chunkBounds(&cc.MetaData, r.file.Size())
	if err != nil {
		return nil, e.wrap(err, "offset index")
	}
	if !validIndex(index.PageLocations, start, end, meta.NumRows) {
		return nil, e.wrap(corruptf("its %d page locations do not describe the column chunk's pages", len(index.PageLocations)), "offset index")
	}
	slot.Store(index)
	return index, nil
}

// ColumnIndex returns the column index of the column chunk of leaf column
// `column` in row group `rowGroup`: for each data page, whether it holds
// only nulls, the bounds of its values as the file states them, and (if
// the writer recorded them) its null count. Entry i describes page i of
// the chunk's [Reader.OffsetIndex]. It returns nil, nil if the chunk has
// no column index.
//
// The index is read, kept and checked against the file's size and for its
// thrift encoding as with [Reader.OffsetIndex], whose index it reads too.
// Its lists must have one entry per page (the null counts may be absent),
// and as many as the offset index has pages if the chunk has one. An
// index that says a page of rows holds only nulls, in a column of required
// fields, which has none, is ignored: ColumnIndex returns nil, nil, as for
// a chunk without one. parquet-mr 1.13 flagged so the pages it wrote
// without statistics; the data is sound, and a filter that trusted the
// flags would drop the pages' rows (parquet-java ignores such an index
// too). The bounds themselves are not checked: they are PLAIN-encoded
// values in the order that the file's column_orders declare, and mean
// nothing for pages that hold only nulls.
//
// Errors are as for [Reader.OffsetIndex], whose errors it returns.
func (r *Reader) ColumnIndex(ctx context.Context, rowGroup, column int) (index *format.ColumnIndex, err error) {
	e, err := r.indexArgs(ctx, rowGroup, column)
	if err != nil {
		return nil, err
	}
	slot := &r.colIndexes[rowGroup*len(r.leaves)+column]
	if index := slot.Load(); index != nil {
		if index == ignoredIndex {
			return nil, nil
		}
		return index, nil
	}
	cc := &r.file.Metadata().RowGroups[rowGroup].Columns[column]
	if cc.ColumnIndexOffset <= 0 && cc.ColumnIndexLength <= 0 {
		return nil, nil // without reading the offset index
	}
	offsets, err := r.OffsetIndex(ctx, rowGroup, column)
	if err != nil {
		return nil, err
	}
	defer e.recoverInto(&err)
	index = new(format.ColumnIndex)
	found, err := r.readIndex(cc.ColumnIndexOffset, cc.ColumnIndexLength, index)
	if err != nil || !found {
		return nil, e.wrap(err, "column index")
	}
	pages := len(index.NullPages)
	switch {
	case len(index.MinValues) != pages || len(index.MaxValues) != pages ||
		len(index.NullCounts) != 0 && len(index.NullCounts) != pages:
		err = corruptf("its lists have %d null page flags, %d minimums, %d maximums and %d null counts",
			pages, len(index.MinValues), len(index.MaxValues), len(index.NullCounts))
	case offsets != nil && len(offsets.PageLocations) != pages:
		err = corruptf("it describes %d pages; the offset index, %d", pages, len(offsets.PageLocations))
	case offsets != nil && r.leaves[column].MaxDefinitionLevel == 0 &&
		nullPageOfRows(index, offsets.PageLocations, r.file.Metadata().RowGroups[rowGroup].NumRows) >= 0:
		index = ignoredIndex
	}
	if err != nil {
		return nil, e.wrap(err, "column index")
	}
	slot.Store(index)
	if index == ignoredIndex {
		return nil, nil
	}
	return index, nil
}

// ignoredIndex marks, in the reader's slot of a column chunk, a column
// index that ColumnIndex ignores.
var ignoredIndex = new(format.ColumnIndex)

// nullPageOfRows returns the first page holding rows that index says
// holds only nulls, or -1; pages lists the pages, one per entry of index.
func nullPageOfRows(index *format.ColumnIndex, pages []format.PageLocation, numRows int64) int {
	for k, null := range index.NullPages {
		end := numRows
		if k+1 < len(pages) {
			end = pages[k+1].FirstRowIndex
		}
		if null && end > pages[k].FirstRowIndex {
			return k
		}
	}
	return -1
}

// indexArgs checks the arguments of a page index read, returning the
// error to fill in.
func (r *Reader) indexArgs(ctx context.Context, rg, column int) (*Error, error) {
	e := &Error{File: r.name, RowGroup: -1, Page: -1, Offset: -1, Row: -1}
	switch {
	case rg < 0 || rg >= r.NumRowGroups():
		e.Err = fmt.Errorf("%w: row group %d does not exist (the file has %d)", ErrArgument, rg, r.NumRowGroups())
		return nil, e
	case column < 0 || column >= len(r.leaves):
		e.RowGroup = rg
		e.Err = fmt.Errorf("%w: leaf column %d does not exist (the file has %d)", ErrArgument, column, len(r.leaves))
		return nil, e
	}
	e.RowGroup, e.Column = rg, r.leaves[column].PathString()
	if err := ctx.Err(); err != nil {
		e.Err = err
		return nil, e
	}
	meta := &r.file.Metadata().RowGroups[rg]
	if n := len(meta.Columns); n != len(r.leaves) {
		e.Err = corruptf("the row group has %d column chunks for %d leaf columns", n, len(r.leaves))
		return nil, e
	}
	if cc := &meta.Columns[column]; cc.CryptoMetadata.Value != nil || len(cc.EncryptedColumnMetadata) > 0 {
		e.Err = unsupportedf("encrypted column chunk")
		return nil, e
	}
	return e, nil
}

// wrap returns err, if not nil, as e's cause, saying which index failed.
func (e *Error) wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	e.Err = fmt.Errorf("%s: %w", what, err)
	return e
}

// recoverInto turns a panic into e with a [*PanicError] cause, stored in
// *err. It must be deferred.
func (e *Error) recoverInto(err *error) {
	if v := recover(); v != nil {
		e.Err = &PanicError{Value: v, Stack: debug.Stack()}
		*err = e
	}
}

// readIndex reads and decodes the page index structure of n bytes at file
// offset off into v. It reports false if the chunk records none (offset
// and length both unset).
func (r *Reader) readIndex(off int64, n int32, v any) (bool, error) {
	if off <= 0 && n <= 0 {
		return false, nil
	}
	size := r.file.Size()
	if off <= 0 || n <= 0 || off > size || int64(n) > size-off {
		return false, corruptf("its byte range (offset %d, %d bytes) lies outside the %d-byte file", off, n, size)
	}
	b := make([]byte, n)
	if err := readAt(r.file, b, off); err != nil {
		return false, fmt.Errorf("reading %d bytes at offset %d: %w", n, off, err)
	}
	if err := checkThrift(b); err != nil {
		return false, corruptf("%v", err)
	}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b, v); err != nil {
		return false, corruptf("%v", err)
	}
	return true, nil
}

// offsetIndex returns the offset index of a column chunk for seeking, or
// nil if it has none or it cannot be used.
func (r *Reader) offsetIndex(ctx context.Context, rg, column int) *format.OffsetIndex {
	index, err := r.OffsetIndex(ctx, rg, column)
	if err != nil {
		return nil
	}
	return index
}

// validIndex reports whether an offset index is consistent with the chunk:
// pages in order within its bytes, row indexes starting at 0 and never
// decreasing. An inconsistent index is not used.
func validIndex(pages []format.PageLocation, start, end, numRows int64) bool {
	if len(pages) == 0 || pages[0].FirstRowIndex != 0 {
		return false
	}
	prevEnd, prevRow := start, int64(0)
	for _, p := range pages {
		size := int64(p.CompressedPageSize)
		if p.Offset < prevEnd || size <= 0 || size > end-p.Offset || p.FirstRowIndex < prevRow || p.FirstRowIndex > numRows {
			return false
		}
		prevEnd, prevRow = p.Offset+size, p.FirstRowIndex
	}
	return true
}
