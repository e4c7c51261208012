package text

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/sources"
)

// CSV returns a source of the records of a CSV dataset. T is the value
// model, what each item is:
//
//   - a struct type: a record decoded into the fields of T (see "Records
//     and fields" below);
//   - [sources.Record]: a record as the columns' names (then the Hive
//     partition columns') and their values as strings, nil for a null
//     field ([NullString]);
//   - *[parquet.ColumnBatch]: records as columns of text, for consumers of
//     tables such as shards.Parquet (see "Column batches").
//
// T is matched exactly: a struct type of its own, even one with the
// fields of sources.Record, is read as structs. Any other T is an error
// when the source is built. The three read the files alike and take the
// same options.
//
// The dataset is root: a file, a directory tree (every *.csv file under
// it, plain or compressed: *.csv.gz, *.csv.zst, *.csv.zstd, *.csv.s2;
// hidden and _-prefixed names skipped), or a glob; or the paths given with
// [sources.Files], under root. Files, Hive partition columns, [sources.Where], shuffling,
// epochs and ranks work as for parquet.Read.
//
// # Records and fields
//
// Files are RFC 4180 CSV as encoding/csv reads it (quoted fields may hold
// the delimiter, quotes doubled and newlines; \r\n ends lines too, and
// inside a quoted field reads as \n). A UTF-8 byte order mark at the start
// of a file, which spreadsheet programs write, is skipped. The first
// record of each file names its columns, unless [Header] gives the names;
// every record must have as many fields. A header that names a column
// twice fails the run with a [*LineError] naming the file and the column,
// as DuckDB's read_csv does, rather than read one of the two. A field of T
// reads the column named by its csv tag (or its Go name); a tag "-" leaves
// it out: strings, []byte, bool, integers and floats (strconv syntax),
// time.Time (a timestamp, at the offset it states, as JSONL reads it, or
// in UTC if it states none; or a date, at midnight UTC), decimal.Decimal
// of github.com/shopspring/decimal (exact, as written: "12.30", "-0.001",
// "1e3"), and pointers to these, nil for an empty field. A field named as
// a Hive partition column reads the partition value instead. A field with
// no column in a file fails the run, naming the file. Columns no field
// reads are skipped. The text of string fields is copied into blocks that
// the rows of a chunk share, not one allocation per row: a value kept long
// after its chunk keeps a few KiB with it. The records of a chunk of
// [sources.Record]s share such blocks for their values and text too.
//
// # Column batches
//
// With T *[parquet.ColumnBatch], each column of the header is an optional
// STRING column (BYTE_ARRAY) holding the fields' text, with a null where
// a field is the [NullString]; shards.Parquet parses the text into a
// schema's types as it parses the strings of records, without a record
// per row. A batch holds up to
// [sources.ChunkSize] records of one partition, and at most 1,048,576
// fields; the Hive partition values are in the batch's Partition, as in
// sources/parquet.Read's column batches. Each row has the ID that the
// record has as a [sources.Record]. A header of more than 65,536 columns
// is an error (records are read up to 1,048,576), since every batch holds
// a column for each. A batch's Release hands its buffers back for later
// batches, as sources/parquet.Read's batches do.
//
// # Partitions and row IDs
//
// An uncompressed file is split into byte ranges of about
// [PartitionBytes] that start at a record (see "CSV and JSON Lines" in
// the package documentation); each range is a partition, read in
// parallel, and the output is the same at every parallelism. A
// compressed file is one partition. A record's ID is its ordinal in its
// file combined with the file's path relative to root, as "Row IDs" in
// the package documentation says: in each block of 64 KiB of the file,
// the ordinals count lines from the block's start, so a partition
// computes its IDs without reading the ones before it.
//
// # Bad input
//
// A record that cannot be decoded (a bare or unterminated quote, a wrong
// number of fields, a field that does not parse as its struct field's
// type) fails the run with a [*LineError] naming the file, the line the
// record starts on and its byte offset; with [sources.SkipBad] such records
// are skipped and reported instead. A compressed stream that is truncated
// or corrupt, and a record longer than 64 MiB, fail the run
// with the line where reading stopped. A file whose size or modification
// time changes after the run planned its ranges fails the partitions read
// after the change, and the partition reading it when it changes, naming
// the file, since its ranges would no longer start at records: a part
// checks when it opens the file and when it has read its range.
//
// Options: [sources.Files], [sources.WholeFiles], [PartitionBytes], [Compression],
// [Header], [Comma], [sources.ShuffleWindow],
// [sources.Where], [sources.SkipBad], [sources.ChunkSize], [sources.Named].
func CSV[T any](root string, opts ...CSVOption) flow.Source[T] {
	c, err := buildText("csv", opts, CSVOption.ApplyCSV)
	if src, ok := modelSource[T](root, c, err, csvRecords{}, csvColumns{}); ok {
		return src
	}
	fields, ferr := textFields[T]("csv", true)
	return &textSource[T]{root: root, cfg: c, err: errors.Join(err, ferr), format: csvStructs[T]{fields: fields}}
}

// csvFiles are the files a CSV source finds in directories.
var csvFiles = dataset.CSV

// csvFile is what the parts of one CSV file share: its column names, and
// where its header ends (after any blank lines before it).
type csvFile struct {
	names []string
	end   int64
}

// csvReader reads one part of a CSV file: records that fit on one line by
// the fast path (csv_fast.go), and the rest of the part, from the first
// record that does not, with encoding/csv.
type csvReader struct {
	part  *textPart
	r     *csv.Reader
	names []string
	line  int64 // the line the last record started on, in the part
	fast  fastCSV
	pace  pacer
	guard *fieldGuard // nil for a part that is not read through a recordLimit
	empty bool        // the part lies in the header
}

// guardRecords makes the part's reader stop before a record of more than
// max fields, from the record it is at.
func (c *csvReader) guardRecords(max int) {
	if c.guard != nil {
		buffered, _ := c.part.r.Peek(c.part.r.Buffered())
		c.guard.guard(max, buffered)
	}
}

// open returns a reader positioned at the part's first record, and the
// file's column names.
func openCSV(ctx context.Context, part *textPart) (*csvReader, error) {
	cfg := part.cfg
	v, err := part.shared(func() (any, error) { return readHeader(ctx, part) })
	if err != nil {
		return nil, err
	}
	names := v.(*csvFile).names
	r := csv.NewReader(part.r)
	r.Comma, r.FieldsPerRecord, r.ReuseRecord = cfg.comma, len(names), true
	c := &csvReader{part: part, r: r, names: names}
	if part.limit != nil {
		c.guard = newFieldGuard(cfg.comma)
		part.limit.guard = c.guard
	}
	c.fast.start(cfg.comma, len(names))
	c.empty = len(names) == 0 // no header: the file has no records
	if end := v.(*csvFile).end; part.from < end {
		// The part begins in the header (or the blank lines before it),
		// which readHeader read: skip to its end, as the fast path skips
		// records, so that positions count from the part's start.
		n, lines, err := discardCounting(ctx, part.r, end-part.from)
		c.fast.bytes, c.fast.lines, c.line, part.mark = n, lines, lines, n
		switch {
		case err == io.EOF:
			c.empty = true // the part ends inside the header
		case err != nil && err == ctx.Err():
			return nil, err
		case err != nil:
			return nil, part.broken(1, 0, err)
		}
	}
	return c, nil
}

// discardCounting discards n bytes of r, or up to its end, and returns
// how many it discarded and the newlines among them. It checks ctx as it
// goes.
func discardCounting(ctx context.Context, r *bufio.Reader, n int64) (int64, int64, error) {
	var done, lines int64
	for done < n {
		if err := ctx.Err(); err != nil {
			return done, lines, err
		}
		b, err := r.Peek(int(min(n-done, int64(r.Size()))))
		lines += int64(bytes.Count(b, []byte{'\n'}))
		r.Discard(len(b))
		done += int64(len(b))
		if err != nil {
			return done, lines, err
		}
	}
	return done, lines, nil
}

// readHeader reads the first record of the file, after a UTF-8 byte
// order mark if the file starts with one; with names given by Header, it
// reads only the mark, which the first part then skips as it skips a
// header. It skips the blank lines before the header, checking ctx, as
// encoding/csv would skip them; they count against that 64 MiB.
func readHeader(ctx context.Context, part *textPart) (*csvFile, error) {
	var src io.Reader = io.NewSectionReader(part.f, 0, 1<<62)
	if part.codec != codec.None {
		d, err := part.codec.NewReader(io.NewSectionReader(part.f, 0, 1<<62))
		if err != nil {
			return nil, fmt.Errorf("%s: %v stream: %w", part.file.RelPath, part.codec, err)
		}
		defer d.Close()
		src = d
	}
	br := bufio.NewReader(src)
	mark := skipBOM(br)
	if part.cfg.header != nil {
		return &csvFile{names: part.cfg.header, end: mark}, nil
	}
	g := newFieldGuard(part.cfg.comma)
	g.guard(maxHeaderFields, nil)
	hr := bufio.NewReader(&recordLimit{r: br, part: &textPart{}, guard: g})
	var pace pacer
	blank := int64(0)
	for {
		line, _, err := peekLine(hr)
		if err != nil || (string(line) != "\n" && string(line) != "\r\n") {
			break
		}
		hr.Discard(len(line))
		mark += int64(len(line))
		blank++
		if err := pace.check(ctx, len(line)); err != nil {
			return nil, err
		}
	}
	r := csv.NewReader(hr)
	r.Comma = part.cfg.comma
	names, err := r.Read()
	if err == io.EOF {
		return &csvFile{}, nil // an empty file has no records
	}
	if err != nil {
		return nil, csvError(&textPart{file: part.file}, mark, err)
	}
	if i, j := duplicateName(names); i >= 0 {
		return nil, &LineError{Path: part.file.RelPath, Line: blank + 1, Offset: mark,
			Err: fmt.Errorf("duplicate column %q in the header (columns %d and %d)", names[j], i+1, j+1)}
	}
	return &csvFile{names: names, end: mark + r.InputOffset()}, nil
}

// duplicateName returns the indexes of the first name of names that is
// there twice, or -1, -1.
func duplicateName(names []string) (int, int) {
	seen := make(map[string]int, len(names))
	for j, n := range names {
		if i, ok := seen[n]; ok {
			return i, j
		}
		seen[n] = j
	}
	return -1, -1
}

// csvError turns an error of encoding/csv reading the header, or of the
// stream under it (a truncated compressed file), into a LineError.
func csvError(part *textPart, off int64, err error) error {
	if pe, ok := err.(*csv.ParseError); ok {
		return &LineError{Path: part.file.RelPath, Line: part.line(int64(pe.StartLine)), Offset: part.from + off, Err: parseErr(part, pe, 0)}
	}
	return &LineError{Path: part.file.RelPath, Line: part.line(1), Offset: part.from + off, Err: err}
}

// parseErr keeps the cause and position of a csv.ParseError, whose line
// numbers count from the part's start, not the file's.
// skipped is the number of lines of the part before encoding/csv's first.
func parseErr(part *textPart, pe *csv.ParseError, skipped int64) error {
	switch {
	case pe.Err == csv.ErrFieldCount:
		return pe.Err
	case pe.Line != pe.StartLine:
		return fmt.Errorf("line %d, column %d: %w", part.line(skipped+int64(pe.Line)), pe.Column, pe.Err)
	}
	return fmt.Errorf("column %d: %w", pe.Column, pe.Err)
}

// each calls fn with every record of the part and its byte offset in the
// part, handling records that encoding/csv rejects. borrowed says that
// rec's strings point into the reader's buffer, valid until fn returns:
// fn copies those it keeps.
// It checks ctx as it goes, every so many lines or bytes.
func (c *csvReader) each(ctx context.Context, fn func(rec []string, off int64, borrowed bool) error) error {
	if c.empty {
		return nil
	}
	if done, err := c.eachFast(ctx, fn); done || err != nil {
		return err
	}
	// Positions from encoding/csv count from where the fast path stopped.
	skipped, skippedLines := c.fast.bytes, c.fast.lines
	c.guardRecords(len(c.names) + maxExtraFields(len(c.names)))
	for {
		n, lines, err := c.skipBlankLines(ctx, skipped)
		skipped, skippedLines = skipped+n, skippedLines+lines
		off := skipped + c.r.InputOffset()
		switch {
		case err != nil && err == ctx.Err():
			return err
		case err != nil:
			return c.part.broken(c.line+1+lines, off, err)
		}
		c.part.mark = off
		rec, err := c.r.Read()
		if err := c.pace.check(ctx, int(skipped+c.r.InputOffset()-off)); err != nil {
			return err
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			pe, ok := err.(*csv.ParseError)
			if !ok {
				return c.part.broken(c.line+1, off, err)
			}
			c.line, c.part.mark = skippedLines+int64(pe.Line), skipped+c.r.InputOffset()
			if err := c.part.bad(skippedLines+int64(pe.StartLine), off, parseErr(c.part, pe, skippedLines)); err != nil {
				return err
			}
			continue
		}
		line, _ := c.r.FieldPos(0)
		c.line = skippedLines + int64(line)
		c.part.mark = skipped + c.r.InputOffset()
		if err := fn(rec, off, false); err != nil {
			return err
		}
	}
}

// fieldError reports a field of the last record that does not parse.
func (c *csvReader) fieldError(col int, off int64, f textField, s string, err error) error {
	return c.part.bad(c.line, off, fmt.Errorf("column %s: %q into field %s: %w", c.names[col], s, f.goName, unwrapNum(err)))
}

type csvStructs[T any] struct{ fields []textField }

func (csvStructs[T]) files() dataset.Format { return csvFiles }
func (csvStructs[T]) quoted() bool          { return true }

func (f csvStructs[T]) read(ctx context.Context, part *textPart, out *rowBuffer[T]) error {
	c, err := openCSV(ctx, part)
	if err != nil || c.empty {
		return err
	}
	init, fields, err := withHive[T](f.fields, part)
	if err != nil {
		return err
	}
	cols := make([]int, len(fields))
	for i, fd := range fields {
		if cols[i] = slices.Index(c.names, fd.name); cols[i] < 0 {
			return fmt.Errorf("%s: no column %q for field %s (columns %q)", part.file.RelPath, fd.name, fd.goName, c.names)
		}
	}
	null := part.cfg.null
	return c.each(ctx, func(rec []string, off int64, borrowed bool) error {
		v := out.next(&init, part.ordinal(off, c.line))
		p := unsafe.Pointer(v)
		for i := range fields {
			fd := &fields[i]
			s := rec[cols[i]]
			if fd.ptr && s == null {
				*(*unsafe.Pointer)(unsafe.Add(p, fd.off)) = nil
				continue
			}
			if borrowed && fd.keeps {
				s = out.mem.String(s)
			}
			if err := fd.parse(unsafe.Add(p, fd.off), s); err != nil {
				out.drop()
				return c.fieldError(cols[i], off, *fd, s, err)
			}
		}
		if out.full() {
			return out.flush(ctx, false)
		}
		return nil
	})
}

// csvRecords reads CSV records as [sources.Record]s.
type csvRecords struct{}

func (csvRecords) files() dataset.Format { return csvFiles }
func (csvRecords) quoted() bool          { return true }

func (csvRecords) read(ctx context.Context, part *textPart, out *rowBuffer[sources.Record]) error {
	c, err := openCSV(ctx, part)
	if err != nil {
		return err
	}
	names := slices.Clip(c.names)
	for _, f := range part.file.Partition {
		names = append(names, f.Name)
	}
	names = slices.Clip(names)
	var init sources.Record
	null := part.cfg.null
	return c.each(ctx, func(rec []string, off int64, borrowed bool) error {
		v := out.next(&init, part.ordinal(off, c.line))
		v.Names, v.Values = names, out.mem.Values(len(names))
		for i, s := range rec {
			if s != null {
				if borrowed {
					s = out.mem.String(s)
				}
				v.Values[i] = out.mem.BoxString(s)
			}
		}
		for i, f := range part.file.Partition {
			v.Values[len(rec)+i] = f.RecordValue()
		}
		if out.full() {
			return out.flush(ctx, false)
		}
		return nil
	})
}
