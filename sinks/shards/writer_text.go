package shards

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/text/jsonfloat"
	"github.com/rowflow/rowflow/sources"
	"github.com/shopspring/decimal"
)

// JSONL returns a sink that writes a stream of structs as JSON Lines
// shards: one JSON object per row (encoding/json, field names from `json`
// tags; two fields of T of one name, of which encoding/json would write
// one or neither, are an error when the sink is built), in files
// part-<rank>-<seq>.jsonl, compressed when [Compression]
// says so (.jsonl.gz, .jsonl.zst, .jsonl.s2). Everything but the encoding
// of a file is [Parquet]'s: file sizes, writers, ranks, [PartitionBy]
// directories, the crash-safe commit and the manifest (whose format is
// "jsonl"). With [RowIDColumn](name), each object ends with the fields
// name_hi and name_lo, the halves of its row ID; a sources.Record that
// already has a column of either name fails the run, naming its row and
// the column, rather than be written with the key twice. The bytes are the same
// at every parallelism and for every chunking of the stream.
//
// JSON has no number for NaN and the infinities, which encoding/json
// refuses: a float field (at any depth of pointers, slices, arrays, map
// values and structs) that holds one is written as the JSON string "NaN",
// "+Inf" or "-Inf", as is a float of a [sources.Record]'s value (in its
// lists too), and the rest of the line is as encoding/json writes it.
// Such a float in an interface field of T, or in a field of a struct that
// embeds another, still fails the run, naming the row. So does a string
// that is not valid UTF-8, which JSON cannot hold either (encoding/json
// would write U+FFFD for its bytes): a []byte field holds any bytes.
//
// sources/text.JSONL[T] reads the files back, field for field, the three
// strings into float fields included.
func JSONL[T any](dir string, opts ...Option) flow.Sink {
	plan, err := newTextPlan[T]("JSONL", "jsonl", dir, opts)
	return newShardSink[T](dir, plan, err)
}

// CSV returns a sink that writes a stream of structs as CSV shards:
// a header row, then one record per row (encoding/csv, quoted where a
// field holds a comma, a quote or a line break), in files
// part-<rank>-<seq>.csv, compressed when [Compression] says so. The
// columns are the struct's exported fields, named by their `csv` tag or
// their Go name (a tag "-" leaves a field out; two of one name are an
// error when the sink is built), as sources/text.CSV[T] reads them:
// strings as they are, integers and booleans by strconv, floats in the
// shortest form that parses back to the same value, []byte as its
// bytes, a time.Time in RFC 3339 with its nanoseconds and zone offset, a
// decimal.Decimal with its scale ("12.30"), and a nil pointer as an empty
// field; a record that is one empty field is written "", not as a blank
// line, which readers skip. A field of another type (a struct, a slice,
// a map) is an error when the sink is built. What CSV cannot tell apart
// comes back as one:
// a pointer to an empty string reads back nil, and a "\r\n" inside a
// string as "\n" (encoding/csv's reader drops a carriage return before a
// line feed, inside quotes too).
// Everything else is as for [JSONL].
func CSV[T any](dir string, opts ...Option) flow.Sink {
	plan, err := newTextPlan[T]("CSV", "csv", dir, opts)
	return newShardSink[T](dir, plan, err)
}

// textPlan is how a text sink encodes one file.
type textPlan[T any] struct {
	format string
	codec  codec.Codec
	idCol  string
	cols   []textColumn // csv
	schema string       // for the manifest
	// shadow, for jsonl, is T's type with floats that encode NaN and the
	// infinities as strings (see internal/text/jsonfloat); nil if T has none.
	shadow reflect.Type
}

// textColumn is one CSV column: a struct field and how to format it.
type textColumn struct {
	name   string
	off    uintptr
	format func(dst []byte, p unsafe.Pointer) []byte
}

func newTextPlan[T any](kind, format, dir string, opts []Option) (*pqPlan[T], error) {
	what := fmt.Sprintf("%s(%q)", kind, dir)
	if dir == "" {
		return nil, fmt.Errorf("shards: %s: empty directory name", kind)
	}
	cfg := parquetDefaults()
	for _, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("shards: %s: nil Option", what)
		}
		if err := o.applyText(&cfg); err != nil {
			return nil, err
		}
	}
	if name := cfg.compression; name != nil {
		k, err := codec.Parse(*name)
		if err != nil {
			return nil, fmt.Errorf("shards: Compression(%q): %w", *name, err)
		}
		cfg.textCodec = k
	}
	if err := checkContinue(&cfg); err != nil {
		return nil, err
	}
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("shards: %s[%v]: the values must be structs", kind, t)
	}
	tp := &textPlan[T]{format: format, codec: cfg.textCodec, idCol: cfg.rowIDColumn}
	if format == "jsonl" {
		tp.shadow, _ = jsonfloat.Shadow(t)
	}
	p := &pqPlan[T]{dir: dir, cfg: cfg, what: what, format: format, ext: "." + format + cfg.textCodec.Ext(), text: tp}
	var names []string
	fieldOf := map[string]string{} // column name → field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		key := "json"
		if format == "csv" {
			key = "csv"
		}
		name, _, _ := strings.Cut(sf.Tag.Get(key), ",")
		switch name {
		case "-":
			continue
		case "":
			if format == "jsonl" && sf.Anonymous {
				names = append(names, sf.Name)
				continue // encoding/json writes its fields
			}
			name = sf.Name
		}
		if other, ok := fieldOf[name]; ok {
			// encoding/json writes neither field (or only the tagged
			// one), and the CSV source refuses a header with a column
			// twice.
			return nil, fmt.Errorf("shards: %s[%v]: fields %s and %s have the same name %q", kind, t, other, sf.Name, name)
		}
		fieldOf[name] = sf.Name
		names = append(names, name)
		if format == "csv" {
			f, err := csvFormatter(sf.Type)
			if err != nil {
				return nil, fmt.Errorf("shards: %s[%v]: field %s: %w", kind, t, sf.Name, err)
			}
			tp.cols = append(tp.cols, textColumn{name: name, off: sf.Offset, format: f})
		}
	}
	if cfg.rowIDColumn != "" {
		for _, n := range names {
			if n == cfg.rowIDColumn+"_hi" || n == cfg.rowIDColumn+"_lo" {
				return nil, fmt.Errorf("shards: %s[%v]: RowIDColumn(%q): the values already have a field %s", kind, t, cfg.rowIDColumn, n)
			}
		}
		names = append(names, cfg.rowIDColumn+"_hi", cfg.rowIDColumn+"_lo")
		if check, ok := any(recordIDClash(cfg.rowIDColumn)).(func([]T) (int, error)); ok {
			p.check = check
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("shards: %s[%v]: the struct has no exported field to write", kind, t)
	}
	tp.schema = format + ": " + strings.Join(names, ", ")
	if len(cfg.partitionBy) > 0 {
		var err error
		if p.parts, err = partitionColumns(t, cfg.partitionBy); err != nil {
			return nil, err
		}
		if check, ok := any(recordPartitionCheck(p.parts)).(func([]T) (int, error)); ok {
			p.check = alsoCheck(p.check, check)
		}
	}
	return p, nil
}

// csvFormatter returns how a field of type t is written in a CSV record:
// a time.Time in RFC 3339 with its nanoseconds and zone offset, a
// decimal.Decimal with its scale ("12.30"), as the CSV source reads them.
func csvFormatter(t reflect.Type) (func([]byte, unsafe.Pointer) []byte, error) {
	switch t {
	case reflect.TypeFor[time.Time]():
		return func(b []byte, p unsafe.Pointer) []byte { return (*time.Time)(p).AppendFormat(b, time.RFC3339Nano) }, nil
	case reflect.TypeFor[decimal.Decimal]():
		return func(b []byte, p unsafe.Pointer) []byte {
			d := (*decimal.Decimal)(p)
			if e := d.Exponent(); e < 0 {
				return append(b, d.StringFixed(-e)...) // String drops the scale's zeros
			}
			return append(b, d.String()...)
		}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, p unsafe.Pointer) []byte { return append(b, *(*string)(p)...) }, nil
	case reflect.Bool:
		return func(b []byte, p unsafe.Pointer) []byte { return strconv.AppendBool(b, *(*bool)(p)) }, nil
	case reflect.Int:
		return intFormatter[int](), nil
	case reflect.Int8:
		return intFormatter[int8](), nil
	case reflect.Int16:
		return intFormatter[int16](), nil
	case reflect.Int32:
		return intFormatter[int32](), nil
	case reflect.Int64:
		return intFormatter[int64](), nil
	case reflect.Uint:
		return uintFormatter[uint](), nil
	case reflect.Uint8:
		return uintFormatter[uint8](), nil
	case reflect.Uint16:
		return uintFormatter[uint16](), nil
	case reflect.Uint32:
		return uintFormatter[uint32](), nil
	case reflect.Uint64:
		return uintFormatter[uint64](), nil
	case reflect.Float32:
		return func(b []byte, p unsafe.Pointer) []byte {
			return strconv.AppendFloat(b, float64(*(*float32)(p)), 'g', -1, 32)
		}, nil
	case reflect.Float64:
		return func(b []byte, p unsafe.Pointer) []byte { return strconv.AppendFloat(b, *(*float64)(p), 'g', -1, 64) }, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(b []byte, p unsafe.Pointer) []byte { return append(b, *(*[]byte)(p)...) }, nil
		}
	case reflect.Pointer:
		inner, err := csvFormatter(t.Elem())
		if err != nil {
			return nil, err
		}
		return func(b []byte, p unsafe.Pointer) []byte {
			if q := *(*unsafe.Pointer)(p); q != nil {
				return inner(b, q)
			}
			return b
		}, nil
	}
	return nil, fmt.Errorf("a CSV field cannot hold a %v", t)
}

func intFormatter[I int | int8 | int16 | int32 | int64]() func([]byte, unsafe.Pointer) []byte {
	return func(b []byte, p unsafe.Pointer) []byte { return strconv.AppendInt(b, int64(*(*I)(p)), 10) }
}

func uintFormatter[U uint | uint8 | uint16 | uint32 | uint64]() func([]byte, unsafe.Pointer) []byte {
	return func(b []byte, p unsafe.Pointer) []byte { return strconv.AppendUint(b, uint64(*(*U)(p)), 10) }
}

// textWriter encodes rows into one file: through a compressor if any,
// buffered, counting what reached the file.
type textWriter[T any] struct {
	plan *textPlan[T]
	sink *countingWriter
	comp io.WriteCloser
	buf  *bufio.Writer
	csv  *csv.Writer
	rec  []string
	b    []byte
	ends []int
	err  error
}

// countingWriter counts the bytes written to the file.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

func (tp *textPlan[T]) newWriter(out io.Writer) batchWriter[T] {
	w := &textWriter[T]{plan: tp, sink: &countingWriter{w: out}}
	w.comp, w.err = tp.codec.NewWriter(w.sink)
	if w.err != nil {
		return w
	}
	w.buf = bufio.NewWriterSize(w.comp, 64<<10)
	if tp.format == "csv" {
		w.csv = csv.NewWriter(w.buf)
		header := make([]string, 0, len(tp.cols)+2)
		for _, c := range tp.cols {
			header = append(header, c.name)
		}
		if tp.idCol != "" {
			header = append(header, tp.idCol+"_hi", tp.idCol+"_lo")
		}
		w.err = w.csv.Write(header)
	}
	return w
}

func (w *textWriter[T]) write(vals []T, ids flow.IDs) error {
	if w.err != nil {
		return w.err
	}
	for k := range vals {
		if err := w.row(&vals[k], ids, k); err != nil {
			w.err = err
			return &rowFailed{k: k, err: err}
		}
	}
	return nil
}

// rowFailed is the error of a text writer's write: the k-th row of the
// call could not be written.
type rowFailed struct {
	k   int
	err error
}

func (e *rowFailed) Error() string { return e.err.Error() }
func (e *rowFailed) Unwrap() error { return e.err }

// row writes one row.
func (w *textWriter[T]) row(v *T, ids flow.IDs, k int) error {
	tp := w.plan
	if tp.format == "csv" {
		w.rec, w.b, w.ends = w.rec[:0], w.b[:0], w.ends[:0]
		ends := w.ends
		for _, c := range tp.cols {
			w.b = c.format(w.b, unsafe.Add(unsafe.Pointer(v), c.off))
			ends = append(ends, len(w.b))
		}
		if tp.idCol != "" {
			id := ids.At(k)
			w.b = strconv.AppendUint(w.b, id.Hi, 10)
			ends = append(ends, len(w.b))
			w.b = strconv.AppendUint(w.b, id.Lo, 10)
			ends = append(ends, len(w.b))
		}
		w.ends = ends
		if len(ends) == 1 && ends[0] == 0 {
			// encoding/csv writes a record of one empty field as a blank
			// line, which readers skip: quote it.
			w.csv.Flush()
			if err := w.csv.Error(); err != nil {
				return err
			}
			_, err := w.buf.WriteString("\"\"\n")
			return err
		}
		start := 0
		for _, e := range ends {
			w.rec = append(w.rec, string(w.b[start:e]))
			start = e
		}
		return w.csv.Write(w.rec)
	}
	b, err := json.Marshal(v)
	if uv := (*json.UnsupportedValueError)(nil); errors.As(err, &uv) && tp.shadow != nil {
		// NaN or an infinity: by the rule of internal/text/jsonfloat.
		b, err = json.Marshal(reflect.NewAt(tp.shadow, unsafe.Pointer(v)).Interface())
	}
	if err != nil {
		return err
	}
	if replacedUTF8(b) {
		return errors.New("a string of the row is not valid UTF-8, which JSON cannot hold (encoding/json would write U+FFFD in its place); a []byte field holds any bytes, as base64")
	}
	if tp.idCol != "" {
		if len(b) < 2 || b[len(b)-1] != '}' {
			return errors.New("the value does not encode as a JSON object")
		}
		id := ids.At(k)
		sep := ","
		if len(b) == 2 {
			sep = ""
		}
		b = fmt.Appendf(b[:len(b)-1], "%s%q:%d,%q:%d}", sep, tp.idCol+"_hi", id.Hi, tp.idCol+"_lo", id.Lo)
	}
	if _, err := w.buf.Write(b); err != nil {
		return err
	}
	return w.buf.WriteByte('\n')
}

// replacedUTF8 reports whether encoding/json replaced a byte that is not
// UTF-8 in the JSON b: it writes such a byte as the escape \ufffd, and
// U+FFFD itself as its UTF-8 bytes. Text that holds a backslash and
// "ufffd" is written with the backslash doubled, so \ufffd is a
// replacement where an even number of backslashes precede it.
func replacedUTF8(b []byte) bool {
	for i := 0; ; i++ {
		j := bytes.Index(b[i:], []byte(`\ufffd`))
		if j < 0 {
			return false
		}
		i += j
		k := i
		for k > 0 && b[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return true
		}
	}
}

// recordIDClash returns the check of records, whose columns are known
// only row by row, that finds the first record that already has a column
// the row ID column idCol adds.
func recordIDClash(idCol string) func(recs []sources.Record) (int, error) {
	hi, lo := idCol+"_hi", idCol+"_lo"
	return func(recs []sources.Record) (int, error) {
		for i, r := range recs {
			for _, n := range r.Names {
				if n == hi || n == lo {
					return i, fmt.Errorf("RowIDColumn(%q): the record already has a column %q", idCol, n)
				}
			}
		}
		return 0, nil
	}
}

func (w *textWriter[T]) flush() error {
	if w.err != nil {
		return w.err
	}
	if w.csv != nil {
		w.csv.Flush()
		if err := w.csv.Error(); err != nil {
			return err
		}
	}
	return w.buf.Flush()
}

// size counts what reached the file: with compression, the compressor's
// output so far.
func (w *textWriter[T]) size() int64 { return w.sink.n }

func (w *textWriter[T]) close() error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.comp.Close()
}
