package sources

import (
	"fmt"
	"github.com/rowflow/rowflow/internal/optcheck"

	"github.com/rowflow/rowflow/rowid"
)

// Options are typed by the sources that take them, in the manner of
// parquet-go's ReaderOption and WriterOption: giving a source an option it
// does not take is a compile error.

// SliceOption configures [Slice] and [Generate].
type SliceOption interface {
	applySlice(*memConfig) error
}

// ParquetOption configures [Parquet], [ParquetColumns] and
// [ParquetRecords].
type ParquetOption interface {
	applyParquet(*parquetConfig) error
}

// CSVOption configures [CSV] and [CSVRecords].
type CSVOption interface {
	applyCSV(*textConfig) error
}

// JSONLOption configures [JSONL] and [JSONLRecords].
type JSONLOption interface {
	applyJSONL(*textConfig) error
}

// TextOption is an option of both the CSV and the JSON Lines sources.
type TextOption interface {
	CSVOption
	JSONLOption
}

// Option is an option that every source takes: [ChunkSize] and [Named].
type Option interface {
	SliceOption
	DatasetOption
}

// common is the configuration every source has.
type common struct {
	name      string
	base      rowid.ID
	chunkSize int
}

func defaultCommon(name string) common {
	return common{name: name, base: rowid.FromString(name), chunkSize: 1024}
}

// memConfig configures Slice and Generate.
type memConfig struct {
	common
	partitionSize int
}

type commonOption func(*common) error

func (o commonOption) applySlice(c *memConfig) error       { return o(&c.common) }
func (o commonOption) applyParquet(c *parquetConfig) error { return o(&c.common) }
func (o commonOption) applyCSV(c *textConfig) error        { return o(&c.common) }
func (o commonOption) applyJSONL(c *textConfig) error      { return o(&c.common) }

type sliceOption func(*memConfig) error

func (o sliceOption) applySlice(c *memConfig) error { return o(c) }

type parquetOption func(*parquetConfig) error

func (o parquetOption) applyParquet(c *parquetConfig) error { return o(c) }

// PartitionSize sets how many values make one partition (default 16384).
// Partitions are what parallel workers take turns on. n must be at least 1.
func PartitionSize(n int) SliceOption {
	return sliceOption(optcheck.AtLeast("sources", "PartitionSize", n, 1, func(c *memConfig, v int) { c.partitionSize = v }))
}

// ChunkSize sets the most values one chunk carries (default 1024). n must
// be at least 1 and at most MaxChunkSize.
func ChunkSize(n int) Option {
	return commonOption(optcheck.Between("sources", "ChunkSize", n, 1, MaxChunkSize, func(c *common, v int) { c.chunkSize = v }))
}

// MaxChunkSize is the largest ChunkSize: sources make room for a whole
// chunk before they fill it.
const MaxChunkSize = 1 << 20

// Named names the source in errors and derives its row IDs from name:
// row i gets rowid.Ordinal(i).Combine(rowid.FromString(name)). Two sources
// that are mixed or joined should have different names.
func Named(name string) Option {
	return commonOption(func(c *common) error {
		c.name, c.base = name, rowid.FromString(name)
		return nil
	})
}

// settings returns what of c goes into a source's Info.Settings. The
// chunk size does not: it changes how rows travel, not which rows, their
// IDs or their partitions.
func (c common) settings() string {
	return fmt.Sprintf("name=%q base=%v", c.name, c.base)
}

// settings returns the text of the Info.Settings of a source of n values.
func (c memConfig) settings(n int64) string {
	return fmt.Sprintf("n=%d partition=%d %s", n, c.partitionSize, c.common.settings())
}

// buildMem applies opts to the defaults of Slice and Generate.
func buildMem(name string, opts []SliceOption) (memConfig, error) {
	c := memConfig{common: defaultCommon(name), partitionSize: 16384}
	for _, o := range opts {
		if o == nil {
			return c, fmt.Errorf("sources: %s: nil option", name)
		}
		if err := o.applySlice(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}
