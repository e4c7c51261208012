package parquet

import (
	"fmt"
	"slices"

	"github.com/rowflow/rowflow/internal/api/optcheck"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/datasource"
)

// Option configures [Read] and [RecordSchema].
// The options of package sources that every source of files takes
// (sources.Files, sources.Where, sources.Named, …) are Options too.
//
// ApplyParquet is exported so that the options of package sources can
// implement it; its parameter is internal, so only rowflow's packages
// can: give a source the options these packages make, not a type of
// your own.
type Option interface {
	ApplyParquet(*datasource.Settings) error
}

// option is an option of the Parquet sources alone.
type option func(*parquetConfig) error

func (o option) ApplyParquet(s *datasource.Settings) error { return o(s.Format.(*parquetConfig)) }

// parquetConfig is the configuration of a Parquet source: these options
// are the one place where the dataset planner's settings are declared,
// defaulted and checked.
type parquetConfig struct {
	datasource.Settings
	columns   []string          // Columns' names, in order; nil: all columns
	rename    map[string]string // user name -> raw column name
	rowFilter *filter.Expr
	trace     bool
	maxPage   int64
	maxRead   int64 // pqcol.MaxReadSize; 0 keeps pqcol's default
}

// defaultMaxRows is the most rows of a fragment unless [MaxRows] says
// otherwise.
const defaultMaxRows = 65536

// buildParquet applies opts to the defaults.
func buildParquet(opts []Option) (parquetConfig, error) {
	c := &parquetConfig{Settings: datasource.NewSettings("parquet")}
	c.Plan.MaxRows = defaultMaxRows
	c.Plan.RowRanges = true // ranks divide row groups by rows
	c.Format = c
	defer func() { c.Format = nil }()
	for _, o := range opts {
		if o == nil {
			return *c, fmt.Errorf("sources: parquet: nil option")
		}
		if err := o.ApplyParquet(&c.Settings); err != nil {
			return *c, err
		}
	}
	if c.Plan.WholeFiles {
		c.Plan.MaxRows = 0 // a whole file is one fragment
	}
	return *c, nil
}

// MaxRows splits row groups of more than n rows into fragments of at most
// n rows (default 65536), bounding the memory one fragment
// takes and letting parallel workers share a large row group. n must be
// at least 1.
func MaxRows(n int64) Option {
	return option(optcheck.AtLeast("sources", "MaxRows", n, 1, func(c *parquetConfig, v int64) { c.Plan.MaxRows = v }))
}

// Columns reads only the named columns: file columns and Hive partition
// columns alike, by their names after [Rename] (file columns of records
// and column batches by their dotted leaf paths).
// Without it, every column is read: for structs the columns of T's
// fields; for records and batches the file columns in file order, then
// the Hive columns in path order. With it, only the named columns come, in the
// order named: a record's names and a batch's Columns follow it, a Hive
// column not named is left out of records and of
// [ColumnBatch.Partition], and struct fields of columns not named stay
// zero. Columns that are not read are not decoded. A name that is
// neither a column of a file nor one of its Hive partition columns fails
// the run when the file is opened, with an error naming the file and the
// column. Given more than once, the names add up, each in the place
// where it was first named. Row IDs do not depend on the columns read.
func Columns(names ...string) Option {
	names = append([]string(nil), names...)
	return option(func(c *parquetConfig) error {
		if c.columns == nil {
			c.columns = []string{}
		}
		for _, n := range names {
			if !slices.Contains(c.columns, n) {
				c.columns = append(c.columns, n)
			}
		}
		return nil
	})
}

// selected returns the set of the names [Columns] gives, or nil if it is
// not given.
func (c *parquetConfig) selected() map[string]bool {
	if c.columns == nil {
		return nil
	}
	set := make(map[string]bool, len(c.columns))
	for _, n := range c.columns {
		set[n] = true
	}
	return set
}

// Rename reads the column raw under the name user: a struct field
// tagged user reads column raw. raw is a file column, nested columns
// named by their path joined with ".", or a Hive partition column. The
// options that name columns, [Columns], [RowFilter] and [sources.Where], name
// them by their user names. A file that has no column raw, and no Hive
// partition column raw, is an error that names the file and the column.
// So is a file that has another column user, of its own or a Hive
// partition column, that no Rename renames: the two columns would take
// one name. [Read], whose fields pick their columns, allows that when
// both are file columns (the field reads column raw); a Hive column
// takes part in no such clash.
func Rename(raw, user string) Option {
	return option(func(c *parquetConfig) error {
		if c.rename == nil {
			c.rename = map[string]string{}
		}
		if prev, ok := c.rename[user]; ok && prev != raw {
			return fmt.Errorf("sources: Rename(%q, %q): %q already names column %q", raw, user, user, prev)
		}
		c.rename[user] = raw
		return nil
	})
}

// Trace fills the trace columns: struct fields tagged `parquet:"__file"`
// (a string: the file's path relative to the root), `parquet:"__row_group"`
// and `parquet:"__row_index"` (integers: the row group, and the row's index
// in its file).
func Trace() Option {
	return option(func(c *parquetConfig) error { c.trace = true; return nil })
}

// MaxPageSize caps the decoded size of one Parquet page (default 256 MiB).
// A page over the cap fails its fragment with an error instead of
// allocating: a small file cannot make the reader take gigabytes. bytes
// must be positive.
func MaxPageSize(bytes int64) Option {
	return option(optcheck.AtLeast("sources", "MaxPageSize", bytes, 1, func(c *parquetConfig, v int64) { c.maxPage = v }))
}

// MaxReadSize caps the memory that one fragment may decode to, values and
// levels of all the columns read, together (default 128 MiB, pqcol's
// DefaultMaxReadSize).
// Pages under [MaxPageSize] can still amplify: one dictionary value
// repeated by every row, pages of millions of nulls, a row group of many
// full pages. A fragment that would pass the cap fails with an error
// naming the file, row group, column and page, before the page that
// would pass it is decoded into memory; [MaxRows] makes fragments of
// legitimately large row groups smaller. bytes must be positive.
func MaxReadSize(bytes int64) Option {
	return option(optcheck.AtLeast("sources", "MaxReadSize", bytes, 1, func(c *parquetConfig, v int64) { c.maxRead = v }))
}
