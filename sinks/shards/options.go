package shards

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/internal/api/optcheck"
	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// ParquetOption configures [Parquet]. Options are checked when the sink is
// built; see "Failure" in the package documentation for how a bad one is
// reported. A nil ParquetOption is an error.
type ParquetOption interface {
	applyParquet(*parquetConfig) error
}

type parquetOption func(*parquetConfig) error

func (o parquetOption) applyParquet(c *parquetConfig) error { return o(c) }

// Option configures every shard sink: [Parquet], which takes every
// Option as a ParquetOption, and [JSONL] and [CSV], which take Options
// only. The options that are not about the Parquet encoding (the
// files' size and compression, the writers, the row-ID column,
// partitioning, Overwrite, Continue) are Options. A nil Option is an
// error.
type Option interface {
	ParquetOption
	applyText(*parquetConfig) error
}

// shardOption is an option of every shard sink.
type shardOption func(*parquetConfig) error

func (o shardOption) applyParquet(c *parquetConfig) error { return o(c) }
func (o shardOption) applyText(c *parquetConfig) error    { return o(c) }

// parquetConfig is the result of applying ParquetOptions.
type parquetConfig struct {
	rowsPerFile  int64 // 0: unlimited
	bytesPerFile int64 // 0: unlimited
	rowGroupRows int64
	pageSize     int         // 0: parquet-go's default
	compression  *string     // as Compression gives it; nil: the format's default
	codecName    string      // Parquet's, from compression
	textCodec    codec.Codec // JSONL, CSV, from compression
	zstdLevel    int         // 0: not set
	writers      int
	rowIDColumn  string
	partitionBy  []string
	maxOpenParts int
	overwrite    bool
	continuing   bool            // Continue
	schema       *parquet.Schema // Schema; nil: not given
}

// Defaults and limits of [Parquet]; the option docs state them.
const (
	// defaultRowGroupRows is the number of rows of a row group unless
	// [RowGroupRows] says otherwise.
	defaultRowGroupRows = 64 * 1024
	// defaultMaxOpenPartitions is the number of partition writers a writer
	// may hold open unless [MaxOpenPartitions] says otherwise.
	defaultMaxOpenPartitions = 64
	// maxPageBytes is the largest page size [PageSize] accepts, 128 MiB:
	// half of the decoded page size that the sources read by default
	// (sources/parquet.MaxPageSize, 256 MiB), which leaves room for the values
	// that end a page past its cut, so that the files read back with the
	// sources' defaults.
	maxPageBytes = 128 << 20
)

func parquetDefaults() parquetConfig {
	return parquetConfig{
		rowGroupRows: defaultRowGroupRows,
		codecName:    "zstd",
		writers:      1,
		maxOpenParts: defaultMaxOpenPartitions,
	}
}

// RowsPerFile ends a file once it holds n rows, and starts the next. The
// default is no limit: one file per writer (and per partition directory
// with [PartitionBy]), unless [BytesPerFile] ends it. n must be at least 1.
func RowsPerFile(n int64) Option {
	return shardOption(optcheck.AtLeast("shards", "RowsPerFile", n, 1, func(c *parquetConfig, v int64) { c.rowsPerFile = v }))
}

// BytesPerFile ends a file once it holds at least n bytes of compressed
// output, and starts the next. The size is checked when a row group has
// been written, so a file ends at the first row-group boundary at which it
// has reached n bytes: it may exceed n by up to one row group plus the
// footer. Make [RowGroupRows] smaller for a tighter bound. [JSONL] and
// [CSV] files, which have no row groups and do not take RowGroupRows, are
// checked every 65536 rows (RowGroupRows' default): with a small n, every
// file but the last holds 65536 rows, whatever their size; use
// [RowsPerFile] to bound them by rows. The default is no limit. n must be
// at least 1.
func BytesPerFile(n int64) Option {
	return shardOption(optcheck.AtLeast("shards", "BytesPerFile", n, 1, func(c *parquetConfig, v int64) { c.bytesPerFile = v }))
}

// RowGroupRows sets the number of rows of a row group (default
// 65536). The last row group of a file may be shorter. A writer buffers
// one row group's encoded pages in memory; rowflow's own Parquet writer
// (that of records, column batches and most structs, see [Parquet])
// buffers its values, unencoded, and also ends a row group once its byte
// arrays (strings, bytes) take 128 MiB, so that rows of large values do
// not hold many times that. n must be at least 1.
func RowGroupRows(n int) ParquetOption {
	return parquetOption(optcheck.AtLeast("shards", "RowGroupRows", n, 1, func(c *parquetConfig, v int) { c.rowGroupRows = int64(v) }))
}

// PageSize sets the size in bytes, before encoding and compression, at
// which a column's page is cut (parquet-go's PageBufferSize; default 256
// KiB). n must be from 1 to 128 MiB.
func PageSize(n int) ParquetOption {
	return parquetOption(optcheck.Between("shards", "PageSize", n, 1, maxPageBytes, func(c *parquetConfig, v int) { c.pageSize = v }))
}

// Compression sets the compression of the files. Parquet files
// ([Parquet]) compress every column with "zstd" (the default,
// klauspost/compress's encoder), "snappy", "gzip", "lz4" (Parquet's
// LZ4_RAW) or "none". [JSONL] and [CSV] files
// are compressed whole with "gzip", "zstd", "s2" (from
// github.com/klauspost/compress) or "none" (the default), and their
// extension says which (.gz, .zst, .s2), as the sources expect. Another
// name is an error when the sink is built.
func Compression(name string) Option {
	return shardOption(func(c *parquetConfig) error {
		c.compression = &name
		return nil
	})
}

// parquetCodecs are the names of the Parquet compressions.
var parquetCodecs = []string{"zstd", "snappy", "gzip", "lz4", "none"}

// ZstdLevel sets the zstd compression level, on zstd's scale of 1 to 22.
// klauspost/compress has four encoder levels, and the level maps to the
// nearest: 1–2 fastest, 3–5 default, 6–9 better, 10–22 best. The default is
// 3, except where rowflow's own Parquet writer writes ([Parquet] of
// records, of column batches and of the structs that it covers), which
// by default compresses each column
// of a file at the fastest level or at 3, whichever pays on the column's
// first page (3 when it saves more than 2% of the bytes): on text with repeats
// level 3 saves about 8%, where on numbers, hashes and other dense values
// the two come within 1% of each other, and the fastest level takes about
// half the time. The manifest records that choice as the level "auto". It
// is an error with a codec other than zstd.
func ZstdLevel(level int) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if level < 1 || level > 22 {
			return fmt.Errorf("shards: ZstdLevel(%d): must be from 1 to 22", level)
		}
		c.zstdLevel = level
		return nil
	})
}

// Writers sets the number of files written at once, each by its own
// goroutine (default 1: everything runs in the goroutine that feeds the
// sink). The k-th partition of the stream (counting the partitions'
// end markers) goes, whole, to writer k % n. Writer w numbers its files
// w, w+n, w+2n, …, so every writer's files have distinct names. The files
// depend on n; for a given n they do not depend on the parallelism of the
// stages upstream. n must be from 1 to 4096: each writer
// is a goroutine with its own open file and encoding buffers, made when
// the run starts, so a larger n costs memory without writing faster.
func Writers(n int) Option {
	return shardOption(optcheck.Between("shards", "Writers", n, 1, limits.MaxWriters, func(c *parquetConfig, v int) { c.writers = v }))
}

// RowIDColumn adds each row's ID to the files, after T's columns, in a
// form that costs almost nothing and gives every ID back exactly.
//
// In Parquet files it is three required INT64 columns with the logical
// type unsigned 64-bit integer, name+"_key1", name+"_key2" and
// name+"_ord", DELTA_BINARY_PACKED; [RowID](key1, key2, ord) is the row's
// ID. A source gives row i of a file rowid.Ordinal(i).Combine(file), and
// one round of Combine inverts: key2 is a word of the file's combining key
// (the same for all its rows) and ord^key1 is i xored with the key's other
// word. The sink does not know the files; it learns their keys from the
// IDs, and picks key1 so that ord counts up along a file's rows read in
// order, by the ordinals' steps: key1 and key2 are then runs of one value
// and ord a run of even steps. A Parquet source's rows (numbered by row)
// and a CSV or JSON Lines source's (numbered by line within blocks of 64
// KiB) cost a few hundredths of a byte a row. Any ID, a source's or one
// derived by a flat map, a mix or a reduction, has such a triple, so no
// ID is lost or changed; rows whose IDs share no key with other rows of
// their batch (derived rows) cost 16 bytes, as two words of the ID would.
// The three values of an ID depend on the rows written before it to the
// same file (one ID can have other values in another file), learnt over
// batches of 1024 rows counted from the row group's start; ord is the
// row's ordinal only when the sink could tell all its bits: read the ID
// with RowID, and compare IDs, not the columns.
//
// In CSV and JSON Lines files it is two columns, name+"_hi" and name+"_lo",
// the ID's Hi and Lo halves as decimal unsigned integers.
//
// It is an error if T already has a column of one of the names. name
// must not be empty.
func RowIDColumn(name string) Option {
	return shardOption(func(c *parquetConfig) error {
		if name == "" {
			return fmt.Errorf("shards: RowIDColumn(%q): the name must not be empty", name)
		}
		c.rowIDColumn = name
		return nil
	})
}

// PartitionBy writes rows into Hive-style directories by the values of the
// named columns, in the order given: dir/col1=v1/col2=v2/part-….parquet
// (see "Partitioning" in the package documentation for the escaping of
// values). Each column must be a top-level column of T (a field of T or of
// a struct embedded in T), named by its Parquet name (its parquet tag's
// name, or the field's name), of a string, []byte, bool, integer or
// floating-point type, or a pointer to one (nil goes to the default
// partition, like the empty value). The columns stay in the files too, and
// each file records its partition's exact values in its key-value metadata
// (rowflow.partition.<column>), from which sources/parquet.Read reads back a
// value too long for its directory name: a value written is the value
// read.
//
// For records ([Parquet], [JSONL] or [CSV] of sources.Record), a
// column is the record's value of that name: null (or absent) goes to the
// default partition, and a value that is not a string, bytes, a bool or a
// number fails the run, naming its row. Parquet of records also checks,
// when it is built, that its [Schema] has each column, and not as a list.
func PartitionBy(columns ...string) Option {
	columns = append([]string(nil), columns...)
	return shardOption(func(c *parquetConfig) error {
		if len(columns) == 0 {
			return fmt.Errorf("shards: PartitionBy(): name at least one column")
		}
		for i, col := range columns {
			if col == "" {
				return fmt.Errorf("shards: PartitionBy(%q): empty column name", columns)
			}
			for _, prev := range columns[:i] {
				if prev == col {
					return fmt.Errorf("shards: PartitionBy(%q): column %q named twice", columns, col)
				}
			}
		}
		c.partitionBy = columns
		return nil
	})
}

// MaxOpenPartitions caps the number of partition directories ([PartitionBy])
// each writer writes to in one run (default 64).
// Every partition keeps a writer, with its column buffers, open until the
// end of the run; a row of a partition beyond the cap fails the run with an
// error that names its values. n must be at least 1.
func MaxOpenPartitions(n int) Option {
	return shardOption(optcheck.AtLeast("shards", "MaxOpenPartitions", n, 1, func(c *parquetConfig, v int) { c.maxOpenParts = v }))
}

// Overwrite lets a run replace the output of an earlier run of the same
// rank in the directory, whatever it holds. Without it, a run completes or
// confirms the rank's output of an earlier run of the same pipeline but
// fails if that output differs from its own (see "The commit protocol and
// its guarantees" in the package documentation). With it, a successful run
// renames its files over the old ones at its commit, then removes the old
// files of the rank that it did not rewrite, and replaces the manifest. A
// run that fails before its commit leaves the old output as it was. The
// commit first removes the old manifest, so a run that fails or is killed
// during its commit may have replaced or removed some old files but leaves
// no manifest: a manifest on disk always describes exactly the rank's
// files on disk.
func Overwrite() Option {
	return shardOption(func(c *parquetConfig) error {
		c.overwrite = true
		return nil
	})
}

// Schema gives the columns of the files that [Parquet] writes from
// records (T [sources.Record]) or column batches (T *ColumnBatch of
// package sources/parquet), which they require: the schema's top-level
// columns are the files' columns, in its order (a parquet.Group orders
// them by name; sources/parquet.RecordSchema gives the schema of the
// records of a Parquet dataset, in the dataset's order). There is no default: such a
// sink without Schema is an error when it is built, as is one of structs
// with it, since a struct's columns are its fields. A nil schema is an
// error.
func Schema(s *parquet.Schema) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if s == nil {
			return errors.New("shards: Schema: nil schema")
		}
		c.schema = s
		return nil
	})
}

// buildParquetConfig applies opts to the defaults.
func buildParquetConfig(opts []ParquetOption) (parquetConfig, error) {
	c := parquetDefaults()
	for _, o := range opts {
		if o == nil {
			return c, fmt.Errorf("shards: Parquet: nil ParquetOption")
		}
		if err := o.applyParquet(&c); err != nil {
			return c, err
		}
	}
	if err := checkContinue(&c); err != nil {
		return c, err
	}
	if name := c.compression; name != nil {
		if !slices.Contains(parquetCodecs, *name) {
			return c, fmt.Errorf("shards: Compression(%q): want one of %s for Parquet", *name, strings.Join(parquetCodecs, ", "))
		}
		c.codecName = *name
	}
	if c.zstdLevel != 0 && c.codecName != "zstd" {
		return c, fmt.Errorf("shards: ZstdLevel(%d) with Compression(%q): the level is for zstd only", c.zstdLevel, c.codecName)
	}
	return c, nil
}

// checkContinue checks that Continue goes with the other options.
func checkContinue(c *parquetConfig) error {
	if c.continuing && (c.writers > 1 || len(c.partitionBy) > 0) {
		return fmt.Errorf("shards: Continue works with one writer and no PartitionBy (Writers(%d), PartitionBy(%q))", c.writers, c.partitionBy)
	}
	return nil
}

// ownCodec returns the codec of rowflow's own Parquet writer, and its
// level's name: codec's, but for zstd at its default level, whose level
// is chosen per column of a file (pqwrite.NewAdaptiveZstd).
func (c *parquetConfig) ownCodec() (compress.Codec, string) {
	if c.codecName == "zstd" && c.zstdLevel == 0 {
		return pqwrite.NewAdaptiveZstd(), "auto"
	}
	return c.codec()
}

// codec returns the compression codec of c and the name of its level, if
// it has one. zstd is internal/parquet/pqwrite's codec, for every
// Parquet sink: parquet-go's leaves incompressible-looking literals raw.
func (c *parquetConfig) codec() (compress.Codec, string) {
	switch c.codecName {
	case "snappy":
		return &parquet.Snappy, ""
	case "gzip":
		return &parquet.Gzip, ""
	case "lz4":
		return &parquet.Lz4Raw, ""
	case "none":
		return &parquet.Uncompressed, ""
	}
	level := pqzstd.DefaultLevel
	if c.zstdLevel != 0 {
		level = zstd.EncoderLevelFromZstd(c.zstdLevel)
	}
	return pqwrite.NewZstd(level), strings.ToLower(level.String())
}
