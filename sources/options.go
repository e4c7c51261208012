package sources

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/datasource"
	"github.com/rowflow/rowflow/internal/optcheck"

	"github.com/rowflow/rowflow/rowid"
)

// Options are typed by the sources that take them, in the manner of
// parquet-go's ReaderOption and WriterOption: giving a source an option it
// does not take is a compile error. See "Options" in the package
// documentation.

// SliceOption configures [Slice] and [Generate].
type SliceOption interface {
	applySlice(*memConfig) error
}

// DatasetOption configures every source of a dataset of files: those of
// packages sources/parquet and sources/text. It is a parquet.Option, a
// text.CSVOption and a text.JSONLOption.
//
// Its methods are exported so that the option types of those packages
// can require them; their parameter is internal, so only rowflow's
// packages can implement them: give a source the options these packages
// make, not a type of your own.
type DatasetOption interface {
	ApplyParquet(*datasource.Settings) error
	ApplyCSV(*datasource.Settings) error
	ApplyJSONL(*datasource.Settings) error
}

// Option is an option that every source takes: [ChunkSize] and [Named].
type Option interface {
	SliceOption
	DatasetOption
}

// memConfig configures Slice and Generate.
type memConfig struct {
	datasource.Common
	partitionItems int
}

type commonOption func(*datasource.Common) error

func (o commonOption) applySlice(c *memConfig) error             { return o(&c.Common) }
func (o commonOption) ApplyParquet(s *datasource.Settings) error { return o(&s.Common) }
func (o commonOption) ApplyCSV(s *datasource.Settings) error     { return o(&s.Common) }
func (o commonOption) ApplyJSONL(s *datasource.Settings) error   { return o(&s.Common) }

type sliceOption func(*memConfig) error

func (o sliceOption) applySlice(c *memConfig) error { return o(c) }

// PartitionItems sets how many values make one partition (default 16384).
// Partitions are what parallel workers take turns on. n must be at least 1.
func PartitionItems(n int) SliceOption {
	return sliceOption(optcheck.AtLeast("sources", "PartitionItems", n, 1, func(c *memConfig, v int) { c.partitionItems = v }))
}

// ChunkSize sets the most values one chunk carries (default 1024). n must
// be at least 1 and at most 1 Mi (1,048,576).
func ChunkSize(n int) Option {
	return commonOption(optcheck.Between("sources", "ChunkSize", n, 1, maxChunkSize, func(c *datasource.Common, v int) { c.ChunkSize = v }))
}

// maxChunkSize is the largest ChunkSize: sources make room for a whole
// chunk before they fill it.
const maxChunkSize = 1 << 20

// Named names the source in errors and derives its row IDs from name:
// row i gets rowid.Ordinal(i).Combine(rowid.FromString(name)). Two sources
// that are mixed or joined should have different names.
func Named(name string) Option {
	return commonOption(func(c *datasource.Common) error {
		c.Name, c.Base = name, rowid.FromString(name)
		return nil
	})
}

// settings returns the text of the Info.Settings of a source of n values.
func (c memConfig) settings(n int64) string {
	return fmt.Sprintf("n=%d partition=%d %s", n, c.partitionItems, c.Common.Describe())
}

// buildMem applies opts to the defaults of Slice and Generate.
func buildMem(name string, opts []SliceOption) (memConfig, error) {
	c := memConfig{Common: datasource.NewCommon(name), partitionItems: 16384}
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
