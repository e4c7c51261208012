package shards

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	sparquet "github.com/rowflow/rowflow/sources/parquet"
)

// parquetCreatedBy is the created_by field of every file. parquet-go's
// default is read from the program's build information, so the same
// pipeline would write different bytes from a test binary and from a
// command; a constant keeps the bytes a function of the data.
const parquetCreatedBy = "rowflow (github.com/parquet-go/parquet-go)"

// Key-value metadata of every file.
const (
	metaFingerprint = "rowflow.fingerprint"
	metaRowIDColumn = "rowflow.row_id_column"
)

// Parquet returns a sink that writes the stream's values as sharded
// Parquet files in dir, and a manifest of them, as the package
// documentation says: files part-<rank>-<seq>.parquet, committed by the
// rank's [Manifest] with the crash-safe protocol.
//
// T is the value model, picked by its exact type when the sink is built,
// as the sources pick theirs:
//   - [sources.Record]: schema-less records, with the columns that
//     [Schema] gives (see "Records"): the sink of ETL that reads records,
//     as the rowflow command's reshard does;
//   - *ColumnBatch of package sources/parquet: column batches, those of
//     its Read and of sources/text.CSV and JSONL, with the columns that
//     Schema gives, without making a record of each row (see "Column
//     batches");
//   - any other type: structs, mapped to columns by their parquet tags
//     (see "Structs"); a struct type with the fields of sources.Record is
//     a struct.
//
// Records and column batches require [Schema]; structs refuse it, since a
// struct's columns are its fields. Either mistake is an error when the
// sink is built. Everything but how a row becomes columns is the same
// for the three: options, file sizes, writers, ranks, the crash-safe
// commit, the manifest and determinism.
//
// Options: [Schema], [RowsPerFile], [BytesPerFile], [RowGroupRows],
// [PageSize], [Compression], [ZstdLevel], [Writers], [RowIDColumn],
// [PartitionBy], [MaxOpenPartitions], [Overwrite], [Continue].
//
// Files are compressed with zstd unless [Compression] says otherwise, and
// carry the pipeline's fingerprint ([flow.Env]) in their key-value
// metadata as rowflow.fingerprint.
//
// # Structs
//
// A decimal.Decimal field (github.com/shopspring/decimal), or a
// *decimal.Decimal for a nullable column, is written as the DECIMAL
// logical type, with the precision and scale of its tag's option
// decimal(scale:precision), parquet-go's own for integer fields, scale
// first: `parquet:"price,decimal(2:10)"` is a DECIMAL(10,2). The
// precision is at most 38; the column is an INT32 up to 9 digits, an
// INT64 up to 18, a FIXED_LEN_BYTE_ARRAY beyond, as DuckDB and Spark
// write them. A value with more decimal places than the scale (other
// than zeros) or more digits than the precision fails the run, naming
// the field and the row: it is never rounded. A decimal field without
// the option, or inside a slice, map or nested struct, is refused when
// the sink is built.
//
// Structs are written by rowflow's own Parquet writer, as records are:
// each leaf column's values and levels are copied from the chunks
// straight into typed column buffers, a column at a time over up to 1024
// rows, following the column's path through nested structs, pointers
// (null when nil), optional fields (null when zero) and slices (repeated
// fields and LISTs), and a row group's column chunks are encoded in
// parallel when it ends, with dictionaries and delta encodings where they
// pay and zstd's level chosen per column (see [ZstdLevel]). A writer
// holds a row group of values in memory, and ends a row group early,
// after a run of rows, once its byte arrays and lists take 128 MiB. A
// time.Time that its column's unit cannot hold (a zero time.Time in
// nanoseconds) fails the run.
//
// Structs with a column that it does not cover (a map, an interface, a
// list of pointers outside a LIST, a column with compression of its own)
// are handed to parquet-go's typed writer (GenericWriter[T]) in batches
// of 1024 rows aligned on the row group, copied only where a chunk ends
// inside a batch; with [RowIDColumn] or decimals they go through
// parquet-go's dynamic rows, at about four times the cost per row
// (BenchmarkStructWriters). Such a writer holds a row group of encoded
// pages in memory.
//
// # Records
//
// A record's value goes to the column of its name, or to the LIST column
// whose leaf has that dotted path (a.list.element for a LIST a, the name
// records read from such a column have); a column that the record does
// not name is null, and a name that is not a column is an error. Each
// column of the [Schema] is a leaf, a repeated leaf, or a LIST (of lists)
// of leaves, optional or required; a schema with columns of another kind
// (a group that is not a LIST, a MAP) is refused when the sink is built.
//
// A record's value for a list is a []any, as
// sources/parquet.Read[sources.Record] gives it, or a string that holds a
// JSON array, such as "[1,2,3]" or "[]" in a CSV field, whose elements
// (numbers as json.Number) are converted as the lists of
// sources/text.JSONL[sources.Record] are; the empty string is a null
// list, and a string that is not a JSON array is an error. A value is
// converted to its column's type when that loses nothing: any Go integer
// to an integer column that holds it, integers and floats to float
// columns, json.Number (as sources/text.JSONL[sources.Record] gives
// numbers) to any numeric column, and strings, as
// sources/text.CSV[sources.Record] gives every value, parsed with strconv
// to numeric and boolean columns, where the empty string is null.
// BYTE_ARRAY columns take strings and []byte (and a json.Number's text);
// FIXED_LEN_BYTE_ARRAY the right number of bytes; INT96 a [12]byte. A
// value that does not fit, and a null in a required column, fail the run
// with an error that names the partition, the row ID and the column.
// [PartitionBy] takes the records' values of its columns.
//
// # Column batches
//
// Each column of a batch goes, a run of rows at a time, to the column of
// the file that a record's value of its name goes to; the Hive partition
// values of a batch (its Partition) fill the columns of their names (a
// Hive column that the schema does not have is an error, and a null
// value, absent from Partition, is null). Rows that the source's
// RowFilter does not keep are not written; each row's ID is the batch's
// RowID; and each batch is released once its rows are written.
//
// A column whose values the file's leaf holds as they are is copied: the
// same physical type (and length), signedness and repetition levels;
// outside lists, a value is a value and anything else a null, whatever
// the definition levels, and inside lists the definition levels must mean
// the same (as they do with the schema sources/parquet.RecordSchema
// gives for the dataset read). A text column (STRING, ENUM or JSON,
// outside lists) that the leaf does not hold as it is, such as CSV's
// fields for a number, a date or a list, and a Hive value, are converted
// value by value as records convert the same strings, errors included;
// the values of the columns of JSON Lines batches as records of JSON
// Lines are converted (numbers, booleans, arrays and objects as such, not
// as text).
// With such columns the files are those that Parquet[sources.Record]
// writes from the same rows read as records (sources/parquet.Read,
// sources/text.CSV and JSONL of sources.Record), byte for byte, row
// groups included.
//
// Other conversions that records make (an INT32 into an INT64 column, a
// nullable column into a required one, unsigned into signed) are refused:
// a batch column that the schema does not have, and every such mismatch,
// fail the run with an error that names the column, the file read and its
// row group; a value that cannot be converted fails it naming the row. In
// a batch of a text source, a column that the schema does not have, and a
// required column the batch lacks, fail at the first row that has the one
// or lacks the other, as records do. In a batch of JSON Lines, each row
// takes for a column what its record would: the value of whichever of the
// column's names its line has (a LIST's name or its leaf's path), else
// the Hive value of the name, else null; but a line that names a LIST
// both ways takes the batch's first column of the two, where a record
// takes the line's first.
//
// [PartitionBy] and [Continue] are not supported for column batches, and
// refused when the sink is built: the sink cuts files by rows but would
// partition and resume by batches. Write records for them.
//
// # Determinism
//
// The files' names and bytes, and the manifest, are a function of the
// stream's values and IDs, the options, the pipeline's fingerprint and the
// versions of rowflow and parquet-go: not of time, the machine, the
// directory's name, or the parallelism of the stages upstream, since the
// sink sees the same ordered stream whatever that parallelism (unless a
// stage upstream is Unordered), nor of how the stream is cut into chunks.
// The files do depend on [Writers], which chooses which rows go together.
// created_by is a constant.
//
// # Parallelism and cost
//
// With one writer, the sink runs in the goroutine that feeds it. With
// [Writers](n), it starts n goroutines at its first chunk of values, one
// per writer, each with its own Parquet writer, and joins them before it returns
// from Close: none outlives the run.
//
// # Errors
//
// A bad option, a missing or unwanted [Schema], a schema or a T that
// cannot be written, is found when the sink is built: [flow.Pipeline.To]
// keeps the error, and the run fails with it before writing anything.
// Errors of a run name the directory, the file and, where known, the
// partition and row ID being written.
func Parquet[T any](dir string, opts ...ParquetOption) flow.Sink {
	switch any(*new(T)).(type) {
	case sources.Record:
		return parquetRecords(dir, opts)
	case *sparquet.ColumnBatch:
		return parquetColumns(dir, opts)
	}
	plan, err := newPQPlan[T](dir, opts)
	return newShardSink[T](dir, plan, err)
}

// pqPlan is what Parquet works out from T and its options when it
// is built. It is shared, read-only, by every run.
type pqPlan[T any] struct {
	dir    string
	what   string       // the sink and directory, for errors: Parquet("out")
	format string       // "parquet", "jsonl" or "csv"
	ext    string       // the data files' extension
	text   *textPlan[T] // for jsonl and csv
	rec    *recordPlan  // for records (T is sources.Record) and column batches (batchRow)
	fields *structPlan  // for structs that rowflow's writer writes; nil: parquet-go's
	// release, when set, is called with the values of each chunk once
	// they are written, or dropped: the batches of batchRows.
	release func(vals []T)
	// batched queues chunks for the writers of Writers(n > 1) by their
	// rows (batchQueue, queuedGroups) rather than by writerQueue's count:
	// for chunks of column batches, which may be whole partitions, many
	// times the sources' default chunk.
	batched bool
	// check, when set, reports the first value of a chunk that cannot be
	// written, before the chunk is cut into the writer's batches: its
	// error then names the value's own partition and row ID.
	check   func(vals []T) (int, error)
	cfg     parquetConfig
	codec   compress.Codec
	level   string
	tSchema *parquet.Schema // T's schema
	schema  *parquet.Schema // the files' schema: T's, plus the row ID columns
	nCols   int             // leaf columns of T
	dec     *decimalPlan    // T's decimal fields; nil if none
	parts   []partColumn
}

// newPQPlan checks the options against T. It never panics: a panic of
// parquet-go while deriving the schema becomes the error.
func newPQPlan[T any](dir string, opts []ParquetOption) (p *pqPlan[T], err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("shards: Parquet[%v]: %v", reflect.TypeFor[T](), r)
		}
	}()
	if dir == "" {
		return nil, errors.New("shards: Parquet: empty directory name")
	}
	cfg, err := buildParquetConfig(opts)
	if err != nil {
		return nil, err
	}
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("shards: Parquet[%v]: the values must be structs, sources.Record or *parquet.ColumnBatch", t)
	}
	if cfg.schema != nil {
		return nil, fmt.Errorf("shards: Parquet[%v]: Schema is for records and column batches; a struct's columns are its fields", t)
	}
	if f, ok := dateTimeField(t); ok {
		return nil, fmt.Errorf("shards: Parquet[%v]: field %s is a time.Time with a date tag, which parquet-go (v0.32) writes as a wrong day; use a timestamp tag, or an int32 of days since 1970-01-01 with the date tag", t, f)
	}
	p = &pqPlan[T]{dir: dir, cfg: cfg, what: fmt.Sprintf("Parquet(%q)", dir), format: "parquet", ext: ".parquet"}
	var zero T
	if p.dec, err = newDecimalPlan(t); err != nil {
		return nil, err
	}
	p.tSchema = p.dec.schemaOr(zero)
	p.codec, p.level = cfg.codec()
	if p.fields = newStructPlan(t, p.tSchema, p.dec); p.fields != nil {
		p.codec, p.level = cfg.ownCodec()
	} else if f, ok := hiddenTimeField(t); ok {
		return nil, fmt.Errorf("shards: Parquet[%v]: field %s is a time.Time tagged optional in a struct behind a pointer or a slice, which parquet-go (v0.32), the writer of structs with maps, interfaces or compression of their own, writes as null; make it a *time.Time", t, f)
	}
	p.schema = p.tSchema
	p.nCols = len(p.tSchema.Columns())
	switch {
	case cfg.rowIDColumn == "":
	case p.fields != nil:
		p.schema, err = withRecordRowIDColumns(p.tSchema.Name(), pqschema.Columns(p.tSchema), cfg.rowIDColumn)
	default:
		p.schema, err = withRowIDColumns(p.dec.typeOr(t), p.tSchema, cfg.rowIDColumn)
	}
	if err != nil {
		return nil, err
	}
	if len(cfg.partitionBy) > 0 {
		if p.parts, err = partitionColumns(t, cfg.partitionBy); err != nil {
			return nil, err
		}
	}
	if p.dec != nil && p.fields == nil {
		// parquet-go's writer takes rows of several chunks at once: check
		// each chunk first, so that an error names the row. Rowflow's
		// writer fails on the row itself.
		p.check = alsoCheck(p.check, decimalCheck[T](p.dec))
	}
	// Write a file to nowhere, so that what the writer only reports when
	// writing (for parquet-go, when writing a row: no columns, two columns
	// of one name) fails the build.
	w := p.newWriter(io.Discard, "", nil)
	if p.fields == nil {
		if err := w.write([]T{zero}, flow.ListIDs(make([]rowid.ID, 1))); err != nil {
			return nil, fmt.Errorf("shards: Parquet[%v]: %w", t, err)
		}
	}
	if err := w.close(); err != nil {
		return nil, fmt.Errorf("shards: Parquet[%v]: %w", t, err)
	}
	return p, nil
}

// drop recycles c, whose values have been written or will not be.
func (p *pqPlan[T]) drop(c *flow.Chunk[T]) {
	if p != nil && p.release != nil {
		p.release(c.Values)
	}
	c.Release()
}

// batchWriter writes one Parquet file.
type batchWriter[T any] interface {
	// write writes vals, whose row IDs are ids, to the current row group.
	write(vals []T, ids flow.IDs) error
	// flush ends the current row group.
	flush() error
	// size is the number of bytes of the file written so far.
	size() int64
	// close ends the file with its footer.
	close() error
}

// newWriter returns a writer of a file with the plan's schema and options
// that writes to out. The file's key-value metadata holds the exact values
// of its partition, part, under dataset.PartitionMeta + column: a
// directory name holds a long value only truncated, and the sources read
// the whole value back from there.
func (p *pqPlan[T]) newWriter(out io.Writer, fingerprint string, part []PartitionValue) batchWriter[T] {
	if p.text != nil {
		return p.text.newWriter(out)
	}
	kvs := p.keyValues(fingerprint, part)
	if p.rec != nil || p.fields != nil {
		var ids *rowIDEncoder
		if p.cfg.rowIDColumn != "" {
			ids = &rowIDEncoder{col: p.nCols}
		}
		opts := []pqwrite.Option{pqwrite.Codec(p.codec), pqwrite.CreatedBy(parquetCreatedBy)}
		if p.cfg.pageSize > 0 {
			opts = append(opts, pqwrite.PageSize(p.cfg.pageSize))
		}
		for _, kv := range kvs {
			opts = append(opts, pqwrite.KeyValue(kv[0], kv[1]))
		}
		w, err := pqwrite.NewWriter(out, p.schema, opts...)
		rw := newRecordWriter(p.rec, w, err, ids)
		if p.fields != nil {
			return &structWriter[T]{recordWriter: rw, plan: p.fields}
		}
		if _, ok := any(*new(T)).(batchRow); ok {
			return any(&columnWriter{recordWriter: rw}).(batchWriter[T])
		}
		return any(rw).(batchWriter[T])
	}
	opts := []parquet.WriterOption{parquet.Compression(p.codec), createdBy(parquetCreatedBy)}
	if p.cfg.pageSize > 0 {
		opts = append(opts, parquet.PageBufferSize(p.cfg.pageSize))
	}
	for _, kv := range kvs {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	switch {
	case p.dec != nil:
		return newDecimalWriter(p, out, opts)
	case p.cfg.rowIDColumn == "":
		return typedWriter[T]{parquet.NewGenericWriter[T](out, opts...)}
	}
	opts = append(opts, p.schema)
	return &rowWriter[T]{w: parquet.NewGenericWriter[any](out, opts...), t: p.tSchema, ids: rowIDEncoder{col: p.nCols}}
}

// keyValues returns the key-value metadata of a file's footer, in order:
// the pipeline's fingerprint, the partition's values, and the name of the
// row-ID columns, if any.
func (p *pqPlan[T]) keyValues(fingerprint string, part []PartitionValue) [][2]string {
	kvs := [][2]string{{metaFingerprint, fingerprint}}
	for _, v := range part {
		kvs = append(kvs, [2]string{dataset.PartitionMeta + v.Column, v.Value})
	}
	if p.cfg.rowIDColumn != "" {
		kvs = append(kvs, [2]string{metaRowIDColumn, p.cfg.rowIDColumn})
	}
	return kvs
}

// createdBy sets the created_by field of a file as it is.
type createdBy string

func (c createdBy) ConfigureWriter(cfg *parquet.WriterConfig) { cfg.CreatedBy = string(c) }

// typedWriter writes values of T through parquet-go's typed path, which
// maps struct fields to columns without building rows.
type typedWriter[T any] struct{ w *parquet.GenericWriter[T] }

func (t typedWriter[T]) write(vals []T, _ flow.IDs) error {
	n, err := t.w.Write(vals)
	if err == nil && n != len(vals) {
		err = fmt.Errorf("parquet-go wrote %d of %d rows", n, len(vals))
	}
	return err
}

func (t typedWriter[T]) flush() error { return t.w.Flush() }
func (t typedWriter[T]) size() int64  { return t.w.Size() }
func (t typedWriter[T]) close() error { return t.w.Close() }

// dateTimeField returns the path of a field of struct type t (at any
// depth of structs, pointers and slices) that is a time.Time tagged date,
// which parquet-go's writer gets wrong.
func dateTimeField(t reflect.Type) (string, bool) {
	return timeField(t, false, func(opts []string, _ bool) bool { return slices.Contains(opts, "date") })
}

// hiddenTimeField returns the path of a field of struct type t that is a
// time.Time (not a pointer) tagged optional in a struct reached through a
// pointer or a slice, which parquet-go's GenericWriter (v0.32) writes as
// null whatever its value.
func hiddenTimeField(t reflect.Type) (string, bool) {
	return timeField(t, false, func(opts []string, behind bool) bool { return behind && slices.Contains(opts, "optional") })
}

// timeField returns the path of the first field of struct type t (at any
// depth of structs, pointers and slices) that is a time.Time whose tag
// options bad takes, told whether the field is a time.Time itself in a
// struct behind a pointer or a slice (behind says so of t).
func timeField(t reflect.Type, behind bool, bad func(opts []string, behind bool) bool) (string, bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t, behind = t.Elem(), true
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeFor[time.Time]() {
		return "", false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft == reflect.TypeFor[time.Time]() {
			_, opts, _ := strings.Cut(f.Tag.Get("parquet"), ",")
			if bad(strings.Split(opts, ","), behind && f.Type == ft) {
				return f.Name, true
			}
			continue
		}
		if name, ok := timeField(f.Type, behind, bad); ok {
			return f.Name + "." + name, true
		}
	}
	return "", false
}
