package pqcol

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Reader decodes the column chunks of one open Parquet file into [Column]
// buffers. It holds no per-read state: one Reader may serve any number of
// goroutines at once, each reading into its own Column.
type Reader struct {
	id     uint64 // the key of its pages in shared
	name   string
	file   *parquet.File
	leaves []Leaf
	errs   []error // per leaf: why it cannot be read, or nil
	cfg    config
	// Page indexes, per column chunk, once read and checked.
	indexes    []atomic.Pointer[format.OffsetIndex]
	colIndexes []atomic.Pointer[format.ColumnIndex]
	// Per column chunk without an offset index: the pages that its reads
	// found to start a row (see learn.go). learnMu orders the updates.
	learned       []atomic.Pointer[learned]
	learnMu       sync.Mutex
	learnedStarts int // the starts kept in all, under learnMu
}

// Open opens the Parquet file of the given size read through r and returns
// a Reader for it. name identifies the file in errors. The footer is read
// and checked now (its thrift encoding is walked before parquet-go decodes
// it, so that a small footer cannot claim huge lists); pages are read by
// the Read methods, and page indexes when they or [Reader.OffsetIndex] and
// [Reader.ColumnIndex] need them.
func Open(name string, r io.ReaderAt, size int64, options ...Option) (rd *Reader, err error) {
	defer func() {
		if v := recover(); v != nil {
			rd, err = nil, &Error{File: name, RowGroup: -1, Page: -1, Offset: -1, Row: -1,
				Err: &PanicError{Value: v, Stack: debug.Stack()}}
		}
	}()
	r, size, err = checkFooter(r, size)
	if err != nil {
		return nil, &Error{File: name, RowGroup: -1, Page: -1, Offset: -1, Row: -1, Err: err}
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, &Error{File: name, RowGroup: -1, Page: -1, Offset: -1, Row: -1,
			Err: fmt.Errorf("%w: opening the file: %v", ErrCorrupt, err)}
	}
	return NewReader(name, f, options...)
}

// NewReader returns a Reader for a file opened with parquet-go. name
// identifies the file in errors.
func NewReader(name string, f *parquet.File, options ...Option) (*Reader, error) {
	fail := func(err error) error {
		return &Error{File: name, RowGroup: -1, Page: -1, Offset: -1, Row: -1, Err: err}
	}
	cfg := defaultConfig()
	for _, o := range options {
		if err := o(&cfg); err != nil {
			return nil, fail(err)
		}
	}
	leaves, errs, err := leavesOf(f)
	if err != nil {
		return nil, fail(err)
	}
	if err := checkRowCounts(name, f.Metadata(), leaves, f.Size(), cfg); err != nil {
		return nil, err
	}
	chunks := len(f.Metadata().RowGroups) * len(leaves)
	return &Reader{id: readerIDs.Add(1), name: name, file: f, leaves: leaves, errs: errs, cfg: cfg,
		indexes:    make([]atomic.Pointer[format.OffsetIndex], chunks),
		colIndexes: make([]atomic.Pointer[format.ColumnIndex], chunks),
		learned:    make([]atomic.Pointer[learned], chunks)}, nil
}

// Close lets go of the pages that the Reader's reads of parts of row
// groups left decompressed for each other (see "Row ranges" in the package
// documentation): a Reader that is done with before all ranges of a row
// group are read, as when a run fails or is cancelled, holds none. It
// does not close the file, which the caller owns. The Reader must not be
// read after Close.
func (r *Reader) Close() { shared.drop(r.id) }

// Name returns the name the file was given.
func (r *Reader) Name() string { return r.name }

// File returns the parquet-go file.
func (r *Reader) File() *parquet.File { return r.file }

// NumRowGroups returns the number of row groups in the file.
func (r *Reader) NumRowGroups() int { return len(r.file.Metadata().RowGroups) }

// NumRows returns the number of rows of a row group, as its metadata
// declares. It returns -1 if there is no such row group.
func (r *Reader) NumRows(rowGroup int) int64 {
	if rowGroup < 0 || rowGroup >= r.NumRowGroups() {
		return -1
	}
	return r.file.Metadata().RowGroups[rowGroup].NumRows
}

// Leaves returns the leaf columns of the file in column chunk order. The
// caller must not modify them.
func (r *Reader) Leaves() []Leaf { return r.leaves }

// LookupLeaf returns the index of the leaf column with the given path.
func (r *Reader) LookupLeaf(path ...string) (int, bool) {
	for i := range r.leaves {
		if slices.Equal(r.leaves[i].Path, path) {
			return i, true
		}
	}
	return -1, false
}

// ReadColumn decodes the whole column chunk of leaf column `column` in row
// group `rowGroup` into dst, replacing its contents. Besides decoding, it
// checks that the chunk holds exactly the values its metadata declares and
// the rows its row group declares.
//
// On error dst holds an unspecified part of the chunk. The error is an
// [*Error] naming the file, row group, column and, where known, the page.
// ctx is checked between pages.
func (r *Reader) ReadColumn(ctx context.Context, rowGroup, column int, dst *Column) error {
	return r.read(ctx, rowGroup, column, 0, -1, true, dst)
}

// ReadColumnRange decodes rows [from, to) of the column chunk into dst,
// replacing its contents; 0 <= from <= to <= NumRows(rowGroup). A row of a
// repeated column is all the level entries from one repetition level 0 to
// the next, whichever pages they lie in.
//
// When the column chunk has an offset index, the pages before the one
// holding row from are not read at all. Otherwise their headers are read
// and the pages skipped; only the data pages of repeated columns, whose
// rows their levels tell, are read further (the levels of a page v2,
// unless its checksum is verified) and only pages v1 decompressed. The
// pages are read from the last page that an earlier read of the chunk
// through this Reader found to start a row at or before from, or from the
// first page (see "Row ranges" in the package documentation). Reading
// stops at the page where row to begins.
//
// Errors are as for [Reader.ReadColumn].
func (r *Reader) ReadColumnRange(ctx context.Context, rowGroup, column int, from, to int64, dst *Column) error {
	return r.read(ctx, rowGroup, column, from, to, false, dst)
}

func (r *Reader) read(ctx context.Context, rg, column int, from, to int64, whole bool, dst *Column) (err error) {
	e := &Error{File: r.name, RowGroup: -1, Page: -1, Offset: -1, Row: -1}
	if rg < 0 || rg >= r.NumRowGroups() {
		e.Err = fmt.Errorf("%w: row group %d does not exist (the file has %d)", ErrArgument, rg, r.NumRowGroups())
		return e
	}
	e.RowGroup = rg
	if column < 0 || column >= len(r.leaves) {
		e.Err = fmt.Errorf("%w: leaf column %d does not exist (the file has %d)", ErrArgument, column, len(r.leaves))
		return e
	}
	leaf := &r.leaves[column]
	e.Column = leaf.PathString()
	meta := &r.file.Metadata().RowGroups[rg]
	if meta.NumRows < 0 {
		e.Err = corruptf("the row group declares %d rows", meta.NumRows)
		return e
	}
	if whole {
		to = meta.NumRows
	}
	if from < 0 || from > to || to > meta.NumRows {
		e.Err = fmt.Errorf("%w: rows [%d, %d) are not within the row group's %d rows", ErrArgument, from, to, meta.NumRows)
		return e
	}
	dst.reset(leaf, rg, from)
	d := borrowDecoder()
	defer d.release()
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
		if err != nil {
			e.Page, e.Offset, e.Row, e.Err = d.pageNum, -1, d.pageRow, err
			if d.pageNum >= 0 {
				e.Offset = d.page.offset
			}
			err = e
		}
	}()
	if !whole && from == to {
		return nil
	}
	return r.decode(ctx, rg, column, meta, &request{from: from, to: to, whole: whole, toEnd: to == meta.NumRows,
		numRows: meta.NumRows, col: dst, dec: d})
}

// decode checks the column chunk's metadata, positions the decoder and runs
// it.
func (r *Reader) decode(ctx context.Context, rg, column int, meta *format.RowGroup, req *request) error {
	d := req.dec
	leaf := &r.leaves[column]
	d.init(r.cfg, leaf, 0)
	if err := r.errs[column]; err != nil {
		return err
	}
	if len(meta.Columns) != len(r.leaves) {
		return corruptf("the row group has %d column chunks for %d leaf columns", len(meta.Columns), len(r.leaves))
	}
	cc := &meta.Columns[column]
	if cc.CryptoMetadata.Value != nil || len(cc.EncryptedColumnMetadata) > 0 {
		return unsupportedf("encrypted column chunk")
	}
	cm := &cc.MetaData
	if parquet.Kind(cm.Type) != leaf.Kind {
		return corruptf("the column chunk's physical type %s differs from the schema's %s", cm.Type, leaf.Kind)
	}
	if err := checkCodec(cm.Codec); err != nil {
		return err
	}
	if cm.NumValues < 0 {
		return corruptf("the column chunk declares %d values", cm.NumValues)
	}
	start, end, err := chunkBounds(cm, r.file.Size())
	if err != nil {
		return err
	}
	slot := rg*len(r.leaves) + column
	d.codec, d.reader, d.chunk = cm.Codec, r.id, slot
	d.win.reset(r.file, start, end)
	d.end, d.size = end, r.file.Size()
	req.numValues = cm.NumValues
	pos, firstPage := start, 0
	seeks := !req.whole && req.from > 0
	switch {
	case r.cfg.ignoreIndex:
	case cc.OffsetIndexOffset > 0 || cc.OffsetIndexLength > 0:
		if seeks {
			index := r.offsetIndex(ctx, rg, column)
			if index != nil && index.PageLocations[0].Offset > start {
				d.win.stop = index.PageLocations[0].Offset // a dictionary page, read first
			}
			pos, firstPage, err = d.seek(ctx, index, start, req)
			if index != nil && !req.toEnd {
				d.win.stop = pagesEnd(index.PageLocations, req.to)
			}
		}
	default:
		d.learning = true
		d.found.gap = max(r.cfg.learnGap, (end-start)/maxChunkStarts)
		if seeks {
			pos, firstPage, err = d.seekLearned(ctx, r.learned[slot].Load(), start, req)
		}
	}
	if err == nil {
		err = d.run(ctx, pos, firstPage, req)
	}
	if d.learning {
		r.learn(slot, &d.found)
	}
	return err
}

// pagesEnd returns where the pages that hold rows before row to end: the
// offset of the page where row to begins, or 0 (no bound) if it is in the
// last page.
func pagesEnd(pages []format.PageLocation, to int64) int64 {
	for i := 1; i < len(pages); i++ {
		if pages[i].FirstRowIndex >= to {
			return pages[i].Offset
		}
	}
	return 0
}

// chunkBounds returns the file byte range of a column chunk: from its
// dictionary page (if recorded before the first data page) through
// TotalCompressedSize bytes.
func chunkBounds(cm *format.ColumnMetaData, fileSize int64) (start, end int64, err error) {
	start = cm.DataPageOffset
	if cm.DictionaryPageOffset > 0 && cm.DictionaryPageOffset < start {
		start = cm.DictionaryPageOffset
	}
	size := cm.TotalCompressedSize
	if start < 0 || size < 0 || start > fileSize || size > fileSize-start {
		return 0, 0, corruptf("the column chunk's byte range (offset %d, %d bytes) lies outside the %d-byte file", start, size, fileSize)
	}
	return start, start + size, nil
}

// seek positions the decoder at the data page holding row req.from, using
// the offset index, after loading the dictionary page if the chunk has one.
// It returns the file offset and page ordinal to decode from. Without a
// usable index it returns the chunk's start.
func (d *decoder) seek(ctx context.Context, index *format.OffsetIndex, start int64, req *request) (int64, int, error) {
	if index == nil {
		return start, 0, nil
	}
	pages := index.PageLocations
	target := 0
	for i := 1; i < len(pages) && pages[i].FirstRowIndex <= req.from; i++ {
		target = i
	}
	if target == 0 {
		return start, 0, nil
	}
	firstPage := target
	if pages[0].Offset > start {
		// The bytes before the first data page are the dictionary page.
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		d.pageNum, d.pageRow = 0, -1
		p, err := d.readPage(start, true)
		if err != nil {
			return 0, 0, err
		}
		if p.header.Type != format.DictionaryPage || p.end > pages[0].Offset {
			d.pageNum = -1
			return start, 0, nil // not the layout the index describes: scan instead
		}
		if err := d.dictionaryPage(ctx, p); err != nil {
			return 0, 0, err
		}
		d.pageNum = -1
		firstPage++
	}
	d.nextRow = pages[target].FirstRowIndex
	d.seeked, d.atBoundary = true, true
	return pages[target].Offset, firstPage, nil
}
