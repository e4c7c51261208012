package pqwrite

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Writer writes a Parquet file from typed column buffers, one row group
// per [Writer.WriteRowGroup], and its page indexes and footer on
// [Writer.Close].
//
// The file is laid out as parquet-go lays it out: "PAR1", the row groups'
// column chunks, then every chunk's column index, then every chunk's
// offset index, then the footer. Each data page is a v1 page of
// RLE/bit-packed levels and PLAIN values, with statistics.
//
// The bytes written are a function of the schema, the options (but not
// [Concurrency]) and the columns given, in this package's version.
//
// A Writer is not safe for concurrent use. After an error, every later
// call returns it.
type Writer struct {
	out     io.Writer
	offset  int64
	cfg     config
	schema  *footerSchema
	enc     []chunkEncoder
	groups  []format.RowGroup
	indexes [][]chunk // per row group, per column: the page indexes
	numRows int64
	proto   thrift.CompactProtocol
	err     error
	closed  bool
}

// NewWriter returns a Writer of a file of the given schema to w, after
// writing the file's magic number. Columns of FIXED_LEN_BYTE_ARRAY or
// INT96 are not supported yet.
func NewWriter(w io.Writer, schema *parquet.Schema, options ...Option) (*Writer, error) {
	cfg := defaultConfig()
	for _, o := range options {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	fs, err := schemaOf(schema)
	if err != nil {
		return nil, err
	}
	wr := &Writer{out: w, cfg: cfg, schema: fs, enc: make([]chunkEncoder, len(fs.leaves))}
	for i := range wr.enc {
		wr.enc[i] = chunkEncoder{leaf: &fs.leaves[i], codec: cfg.codec, pageSize: cfg.pageSize}
	}
	if err := wr.write([]byte("PAR1")); err != nil {
		return nil, err
	}
	return wr, nil
}

// Size returns the number of bytes written so far: the row groups, once
// WriteRowGroup has returned, and the footer once Close has.
func (w *Writer) Size() int64 { return w.offset }

// Leaves returns the leaf columns of the schema, in column chunk order:
// what each Column given to WriteRowGroup must hold. The caller must not
// modify them.
func (w *Writer) Leaves() []Leaf { return w.schema.leaves }

// NewColumns returns one empty Column per leaf column.
func (w *Writer) NewColumns() []*Column {
	cols := make([]*Column, len(w.schema.leaves))
	for i := range cols {
		cols[i] = new(Column)
	}
	return cols
}

// WriteRowGroup writes one row group of the columns, one per leaf column
// in the order of [Writer.Leaves]. Their chunks are encoded concurrently
// (see [Concurrency]) and written in column order. The columns must hold
// the same number of rows; a column that is not well formed is reported,
// by its path, and nothing is written. WriteRowGroup does not keep the
// columns: the caller may reset and refill them when it returns. Columns
// of no rows write nothing.
func (w *Writer) WriteRowGroup(ctx context.Context, cols []*Column) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("pqwrite: write to a closed Writer")
	}
	rows, err := w.check(cols)
	if err != nil {
		return err // the columns are wrong; the file is still good
	}
	if rows == 0 {
		return nil
	}
	chunks, err := w.encode(ctx, cols)
	if err != nil {
		return w.fail(err)
	}
	rg := format.RowGroup{NumRows: rows, FileOffset: w.offset, Ordinal: int16(len(w.groups))}
	for i, ch := range chunks {
		start := w.offset
		if err := w.write(ch.data); err != nil {
			return err
		}
		ch.meta.DataPageOffset += start
		if ch.dict {
			ch.meta.DictionaryPageOffset = start
		}
		for j := range ch.offIndex.PageLocations {
			ch.offIndex.PageLocations[j].Offset += start
		}
		rg.Columns = append(rg.Columns, format.ColumnChunk{FileOffset: start, MetaData: ch.meta})
		rg.TotalByteSize += ch.meta.TotalUncompressedSize
		rg.TotalCompressedSize += ch.meta.TotalCompressedSize
		chunks[i].data = nil
	}
	w.groups = append(w.groups, rg)
	w.indexes = append(w.indexes, chunks)
	w.numRows += rows
	return nil
}

// check checks the columns against the leaves and returns their number of
// rows.
func (w *Writer) check(cols []*Column) (int64, error) {
	leaves := w.schema.leaves
	if len(cols) != len(leaves) {
		return 0, fmt.Errorf("pqwrite: %d columns for %d leaf columns", len(cols), len(leaves))
	}
	rows := int64(-1)
	for i, c := range cols {
		l := &leaves[i]
		if err := c.check(l); err != nil {
			return 0, fmt.Errorf("pqwrite: column %s: %w", l.PathString(), err)
		}
		n := c.numRows(l)
		if rows >= 0 && n != rows {
			return 0, fmt.Errorf("pqwrite: column %s holds %d rows, column %s %d",
				l.PathString(), n, leaves[0].PathString(), rows)
		}
		rows = n
	}
	if len(w.groups) >= 1<<15-1 {
		return 0, errors.New("pqwrite: more row groups than a file holds")
	}
	return max(rows, 0), nil
}

// encode encodes the column chunks, up to the configured number at once.
func (w *Writer) encode(ctx context.Context, cols []*Column) ([]chunk, error) {
	chunks := make([]chunk, len(cols))
	errs := make([]error, len(cols))
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(cols) {
				return
			}
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return
			}
			errs[i] = w.encodeOne(i, cols[i], &chunks[i])
		}
	}
	var wg sync.WaitGroup
	for range min(w.cfg.concurrency, len(cols)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return chunks, errors.Join(errs...)
}

// encodeOne encodes column i into *dst, turning a panic into an error.
func (w *Writer) encodeOne(i int, c *Column, dst *chunk) (err error) {
	l := &w.schema.leaves[i]
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("pqwrite: column %s: panic: %v\n%s", l.PathString(), v, debug.Stack())
		}
	}()
	ch, err := w.enc[i].encode(c)
	if err != nil {
		return fmt.Errorf("pqwrite: column %s: %w", l.PathString(), err)
	}
	*dst = *ch
	return nil
}

// Close writes the page indexes and the footer. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	for g := range w.groups {
		for c := range w.groups[g].Columns {
			start := w.offset
			if err := w.marshal(&w.indexes[g][c].colIndex); err != nil {
				return err
			}
			cc := &w.groups[g].Columns[c]
			cc.ColumnIndexOffset, cc.ColumnIndexLength = start, int32(w.offset-start)
		}
	}
	for g := range w.groups {
		for c := range w.groups[g].Columns {
			start := w.offset
			if err := w.marshal(&w.indexes[g][c].offIndex); err != nil {
				return err
			}
			cc := &w.groups[g].Columns[c]
			cc.OffsetIndexOffset, cc.OffsetIndexLength = start, int32(w.offset-start)
		}
	}
	w.indexes = nil
	md := format.FileMetaData{
		Version:          2, // as parquet-go writes
		Schema:           w.schema.elements,
		NumRows:          w.numRows,
		RowGroups:        w.groups,
		KeyValueMetadata: w.cfg.keyValues,
		CreatedBy:        w.cfg.createdBy,
		ColumnOrders:     w.schema.orders,
	}
	start := w.offset
	if err := w.marshal(&md); err != nil {
		return err
	}
	tail := binary.LittleEndian.AppendUint32(nil, uint32(w.offset-start))
	return w.write(append(tail, "PAR1"...))
}

// marshal writes v in the thrift compact protocol.
func (w *Writer) marshal(v any) error {
	b, err := thrift.Marshal(&w.proto, v)
	if err != nil {
		return w.fail(fmt.Errorf("pqwrite: encoding the footer: %w", err))
	}
	return w.write(b)
}

func (w *Writer) write(b []byte) error {
	n, err := w.out.Write(b)
	w.offset += int64(n)
	if err != nil {
		return w.fail(fmt.Errorf("pqwrite: %w", err))
	}
	return nil
}

func (w *Writer) fail(err error) error {
	w.err = err
	return err
}
