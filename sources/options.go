package sources

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/api/optcheck"
	"github.com/rowflow/rowflow/internal/io/datasource"

	"github.com/rowflow/rowflow/rowid"
)

// Options are typed by the sources that take them, in the manner of
// parquet-go's ReaderOption and WriterOption: giving a source an option it
// does not take is a compile error. See "Options" in the package
// documentation.

// SliceOption configures [Slice] and [Generate], and the go-streams
// inputs of package interop/gostreams, which read values in order as
// well: every SliceOption is a gostreams.InputOption.
//
// Its exported methods are those that the option types of that package
// require; their parameter is internal, and the method that Slice and
// Generate call is unexported, so only this package can implement it:
// give a source the options these packages make, not a type of your own.
type SliceOption interface {
	applySlice(*datasource.Stream) error
	ApplyStream(*datasource.Stream) error
	ApplyFlow(*datasource.Stream) error
}

// DatasetOption configures every source of a dataset of files: those of
// packages sources/parquet and sources/text. It is a parquet.Option, a
// text.CSVOption and a text.JSONLOption.
//
// Its methods are exported for the same reason as SliceOption's, and
// only rowflow's packages can implement them.
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

type commonOption func(*datasource.Common) error

func (o commonOption) applySlice(c *datasource.Stream) error     { return o(&c.Common) }
func (o commonOption) ApplyStream(c *datasource.Stream) error    { return o(&c.Common) }
func (o commonOption) ApplyFlow(c *datasource.Stream) error      { return o(&c.Common) }
func (o commonOption) ApplyParquet(s *datasource.Settings) error { return o(&s.Common) }
func (o commonOption) ApplyCSV(s *datasource.Settings) error     { return o(&s.Common) }
func (o commonOption) ApplyJSONL(s *datasource.Settings) error   { return o(&s.Common) }

type sliceOption func(*datasource.Stream) error

func (o sliceOption) applySlice(c *datasource.Stream) error  { return o(c) }
func (o sliceOption) ApplyStream(c *datasource.Stream) error { return o(c) }
func (o sliceOption) ApplyFlow(c *datasource.Stream) error   { return o(c) }

// PartitionItems sets how many values make one partition (default 16384
// for Slice and Generate, 4096 for a go-streams input). Partitions are
// what parallel workers take turns on. n must be at least 1.
func PartitionItems(n int) SliceOption {
	return sliceOption(optcheck.AtLeast("sources", "PartitionItems", n, 1, func(c *datasource.Stream, v int) { c.PartitionItems = v }))
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
// that are mixed or joined should have different names. name must not be
// empty.
func Named(name string) Option {
	return commonOption(func(c *datasource.Common) error {
		if name == "" {
			return fmt.Errorf("sources: Named(\"\"): empty name")
		}
		c.Name, c.Base = name, rowid.FromString(name)
		return nil
	})
}

// memConfig configures Slice and Generate.
type memConfig struct{ datasource.Stream }

// settings returns the text of the Info.Settings of a source of n values.
func (c memConfig) settings(n int64) string {
	return fmt.Sprintf("n=%d partition=%d %s", n, c.PartitionItems, c.Common.Describe())
}

// buildMem applies opts to the defaults of Slice and Generate.
func buildMem(name string, opts []SliceOption) (memConfig, error) {
	c := memConfig{datasource.Stream{Common: datasource.NewCommon(name), PartitionItems: 16384}}
	for _, o := range opts {
		if o == nil {
			return c, fmt.Errorf("sources: %s: nil option", name)
		}
		if err := o.applySlice(&c.Stream); err != nil {
			return c, err
		}
	}
	return c, nil
}
