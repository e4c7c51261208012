package text

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/text/jsonfloat"
	"github.com/rowflow/rowflow/sources"
)

// JSONL returns a source of the records of a JSON Lines dataset, each
// line one JSON value. T is the value model, what each item is:
//
//   - a struct type: the line decoded into a T (see "Structs" below);
//   - [sources.Record]: the line, which must be a JSON object, as its keys
//     and values (see "Records");
//   - *[parquet.ColumnBatch]: lines as columns of text, for consumers of
//     tables such as shards.Parquet (see "Column batches").
//
// T is matched exactly: a struct type of its own, even one with the
// fields of sources.Record, is decoded as a struct. Any other T is an
// error when the source is built. The three read the files alike and take
// the same options.
//
// The dataset is root: a file, a directory tree (every *.jsonl and
// *.ndjson file under it, plain or compressed with a .gz, .zst, .zstd or
// .s2 suffix; hidden and _-prefixed names skipped), or a glob; or the
// paths given with [sources.Files], under root. Files, Hive partition columns,
// [sources.Where], shuffling, epochs and ranks work as for parquet.Read; a field
// named (by json tag or Go name) as a Hive partition column gets the
// partition value, parsed as for [CSV], before the line is decoded.
// Blank lines (of JSON's white space: spaces, tabs, \r) are skipped, as
// is a UTF-8 byte order mark at the start of a file; a line may end in
// \r\n.
//
// # Structs
//
// A line is decoded into a T as encoding/json decodes it (json tags, as
// json.Unmarshal reads them). Most lines are decoded by a faster decoder
// of the package's own, to the same values; the others, and any line that
// does not decode, go to encoding/json, whose error a bad line reports.
// A float field (at any depth of pointers, slices, arrays, map values and
// structs) also reads the JSON strings "NaN", "+Inf" and "-Inf", which
// shards.JSONL writes for the floats JSON has no number for. A
// decimal.Decimal field (of github.com/shopspring/decimal) reads a JSON
// number or a string of one exactly, with no float on the way; a
// *decimal.Decimal is nil for null.
//
// A line is a bad record if an object in it has a key twice, at any depth
// (encoding/json would keep the last value), or if it has no key for a
// field of T that is not optional (a pointer, slice, map or interface, a
// field tagged omitempty or omitzero, an embedded one): the field would
// be its zero value without a word. [AllowMissingFields] lets such lines
// decode.
//
// # Records
//
// With T [sources.Record], a line's keys (in the order of the line) and
// then the Hive partition columns are the record's names. Values are as
// encoding/json decodes into an any, except that numbers are json.Number,
// which keeps integers exact. The strings "NaN", "+Inf" and "-Inf", which
// JSON Lines shards hold for the floats JSON has no number for, stay
// strings: shards.Parquet[sources.Record] writes them to float columns as
// the floats. A line whose object has a key twice, at any depth, is a bad
// record. [AllowMissingFields] has no effect.
//
// # Column batches
//
// With T *[parquet.ColumnBatch], a batch holds up to [sources.ChunkSize]
// lines of one partition. Its columns are the keys of its lines, in the
// order they first appear in the batch, each an optional STRING column
// (BYTE_ARRAY) holding each value as text: a string's contents, a number
// as written, true or false, and an array or an object as its JSON text.
// A key that a line does not have, and a null, are null. A batch ends
// early where its rows times its columns would pass 1,048,576 fields, or
// its columns 65,536; a line of more than 65,536 keys is an error
// (records read it). Lines are read, checked and skipped
// ([sources.SkipBad]) as records are, and each row has the ID of its
// record; shards.Parquet writes the batches as it writes the records,
// byte for byte and error for error, without a record per row. The Hive
// partition values are in the
// batch's Partition, as in sources/parquet.Read's column batches. A
// batch's Release hands its buffers back for later batches.
// [AllowMissingFields] has no effect.
//
// Partitions, row IDs and bad input are as for [CSV]: uncompressed files
// are split into byte ranges at line starts, a record's ordinal counts
// lines within each block of 64 KiB of its file (see "Row IDs" in the
// package documentation), and a line that is not valid JSON, or does not
// decode into T, fails the run with a [*LineError] naming the file, line
// and byte offset, or is skipped with [sources.SkipBad]. A line longer than
// 64 MiB (the longest record a text source reads) fails the run.
//
// Options: [sources.Files], [sources.WholeFiles], [PartitionBytes], [Compression],
// [sources.ShuffleWindow], [sources.Where],
// [sources.SkipBad], [AllowMissingFields], [sources.ChunkSize], [sources.Named].
func JSONL[T any](root string, opts ...JSONLOption) flow.Source[T] {
	c, err := buildText("jsonl", opts, JSONLOption.ApplyJSONL)
	if src, ok := modelSource[T](root, c, err, jsonlRecords{}, jsonlColumns{}); ok {
		return src
	}
	fields, ferr := textFields[T]("json", false)
	shadow, _ := jsonfloat.Shadow(reflect.TypeFor[T]())
	var required []string
	if ferr == nil {
		required = jsonRequired[T]()
	}
	format := jsonlStructs[T]{fields: fields, shadow: shadow, required: required, plan: jsonPlanOf(reflect.TypeFor[T]())}
	return &textSource[T]{root: root, cfg: c, err: errors.Join(err, ferr), format: format}
}

// jsonlFiles are the files a JSON Lines source finds in directories.
var jsonlFiles = dataset.JSONL

// eachLine calls fn with every line of the part that is not blank, without
// its line ending, its line number in the part and its byte offset in it.
// It checks ctx every so many lines or bytes: blank and bad lines, which
// push nothing, can make the part long.
func eachLine(ctx context.Context, part *textPart, fn func(b []byte, line, off int64) error) error {
	var long []byte
	var pace pacer
	line, off := int64(0), int64(0)
	for {
		b, err := part.r.ReadSlice('\n')
		if perr := pace.check(ctx, len(b)); perr != nil {
			return perr
		}
		if err == bufio.ErrBufferFull {
			long = append(long, b...)
			continue
		}
		if long != nil {
			b, long = append(long, b...), nil
		}
		if err != nil && err != io.EOF {
			return part.broken(line+1, off, err)
		}
		if len(b) > 0 {
			line++
			t := b
			if off == 0 && part.from == 0 {
				t = bytes.TrimPrefix(t, []byte(bom))
			}
			if t = bytes.Trim(t, jsonSpace); len(t) > 0 {
				if err := fn(t, line, off); err != nil {
					return err
				}
			}
			off += int64(len(b))
			part.mark = off
		}
		if err == io.EOF {
			return nil
		}
	}
}

// jsonSpace is the white space JSON allows around a value: a line of
// only these is blank. Other Unicode spaces (U+00A0, U+0085) are not
// JSON's, and make a line a bad record.
const jsonSpace = " \t\r\n"

type jsonlStructs[T any] struct {
	fields []textField
	// shadow is T's type with floats that read the strings "NaN",
	// "+Inf" and "-Inf" (see internal/text/jsonfloat); nil if T has none.
	shadow reflect.Type
	// required names the keys of the fields a line must have unless
	// AllowMissingFields (see jsonRequired).
	required []string
	// plan is how the fast path (jsonl_fast.go) decodes a line into a
	// T; nil if it takes none.
	plan *jsonPlan
}

func (jsonlStructs[T]) files() dataset.Format { return jsonlFiles }
func (jsonlStructs[T]) quoted() bool          { return false }

func (f jsonlStructs[T]) read(ctx context.Context, part *textPart, out *rowBuffer[T]) error {
	init, _, err := withHive[T](f.fields, part)
	if err != nil {
		return err
	}
	var keys keyScan
	var fields *fieldKeys
	var top func([]byte)
	if !part.cfg.allowMissing {
		fields = &fieldKeys{}
		for _, name := range f.required {
			if _, hive := part.file.Partition.Get(name); !hive {
				fields.names = append(fields.names, name)
			}
		}
		fields.seen = make([]bool, len(fields.names))
		top = fields.mark
	}
	plan, need := f.plan, []bool(nil)
	if plan != nil && fields != nil {
		var ok bool
		if need, ok = plan.required(fields.names); !ok {
			plan = nil
		}
	}
	var scan jsonScan
	return eachLine(ctx, part, func(b []byte, line, off int64) error {
		v := out.next(&init, part.ordinal(off, line))
		if plan != nil && jsonlFastPath {
			if plan.decode(&scan, b, unsafe.Pointer(v), &out.mem, need) {
				if out.full() {
					return out.flush(ctx, false)
				}
				return nil
			}
			*v = init
		}
		if err := f.decode(b, v, &keys, fields, top); err != nil {
			out.drop()
			return part.bad(line, off, err)
		}
		if out.full() {
			return out.flush(ctx, false)
		}
		return nil
	})
}

// decode decodes the line b into v with encoding/json and checks its
// keys: no key twice, and, if fields is not nil, every required key (top
// is fields.mark).
func (f jsonlStructs[T]) decode(b []byte, v *T, keys *keyScan, fields *fieldKeys, top func([]byte)) error {
	err := f.unmarshal(b, v)
	if err == nil {
		err = keys.check(b, top)
	}
	if fields != nil {
		if missing := fields.missing(); err == nil {
			err = missing
		}
	}
	return err
}

// unmarshal decodes the line b into v. A line that encoding/json cannot
// decode into T for its types is decoded again as T's shadow, whose floats
// also read "NaN", "+Inf" and "-Inf": the sinks write NaN and the
// infinities so.
func (f jsonlStructs[T]) unmarshal(b []byte, v *T) error {
	err := json.Unmarshal(b, v)
	if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) && f.shadow != nil {
		if json.Unmarshal(b, reflect.NewAt(f.shadow, unsafe.Pointer(v)).Interface()) == nil {
			return nil
		}
	}
	return err
}

type jsonlRecords struct{}

func (jsonlRecords) files() dataset.Format { return jsonlFiles }
func (jsonlRecords) quoted() bool          { return false }

func (jsonlRecords) read(ctx context.Context, part *textPart, out *rowBuffer[sources.Record]) error {
	var init sources.Record
	var keys keyScan
	var scan jsonScan
	return eachLine(ctx, part, func(b []byte, line, off int64) error {
		v := out.next(&init, part.ordinal(off, line))
		if jsonlFastPath && scan.record(b, v, part.file.Partition, &out.mem) {
			if out.full() {
				return out.flush(ctx, false)
			}
			return nil
		}
		*v = init
		if err := decodeObject(b, v, part.file.Partition, &keys); err != nil {
			out.drop()
			return part.bad(line, off, err)
		}
		if out.full() {
			return out.flush(ctx, false)
		}
		return nil
	})
}

// decodeObject decodes the JSON object b into r, keys in order, then
// appends the Hive columns. An object with a key twice, at any depth, is
// an error.
func decodeObject(b []byte, r *sources.Record, hive dataset.Partition, keys *keyScan) error {
	if !json.Valid(b) {
		var v any
		return json.Unmarshal(b, &v) // the syntax error, with its offset
	}
	if err := keys.check(b, nil); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, _ := dec.Token(); t != json.Delim('{') {
		return fmt.Errorf("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		r.Names, r.Values = append(r.Names, t.(string)), append(r.Values, v)
	}
	for _, f := range hive {
		r.Names, r.Values = append(r.Names, f.Name), append(r.Values, f.RecordValue())
	}
	return nil
}
