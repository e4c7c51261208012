package dataset

import "github.com/rowflow/rowflow/internal/filter"

// Config is how a [Plan] selects, splits, orders and repeats the
// fragments of a dataset. The zero Config reads every file once, in plan
// order, one fragment per row group, as rank 0 of 1.
//
// The options of package sources are the one place where these settings
// are declared, documented for users and checked; [New] takes a Config
// that they made and relies on it being valid as documented per field.
type Config struct {
	// WholeFiles makes every file one fragment (RowGroup -1). Ordering
	// whole files needs no footer: a footer is read only when its
	// fragment is yielded, to learn the row count. MaxRows must then be 0.
	WholeFiles bool
	// MaxRows, if positive, splits row groups of more than MaxRows rows
	// into sub-partitions of at most MaxRows rows each (see [Fragment]).
	MaxRows int64
	// Window sets how fragments are shuffled: 0 keeps plan order, -1
	// shuffles all fragments of an epoch together, and k > 0 shuffles the
	// files, then the fragments through a buffer of k. See "Shuffling" in
	// the package documentation.
	Window int
	// Seed seeds all random streams.
	Seed uint64
	// Epochs is the number of passes over the data; a negative count
	// repeats forever, and 0 counts as 1.
	Epochs int64
	// Rank and World keep the share of one of World ranks (see "Ranks"
	// in the package documentation). World 0 counts as 1;
	// 0 <= Rank < World.
	Rank, World int
	// RowRanges says that a fragment may be read as any range of its
	// rows, as a Parquet row group can: ranks then divide the epoch's rows
	// evenly, cutting fragments where needed. Without it (and with
	// WholeFiles) ranks take whole fragments, balanced by row count.
	RowRanges bool
	// Where keeps only the files whose partition values it makes true. It
	// is evaluated by [New], before any file is opened; every column it
	// names must be a partition column of the dataset. Nil keeps every file.
	Where *filter.Expr
	// Metadata reads row-group sizes; nil means [ParquetFooters].
	Metadata Metadata
}

// forever reports whether the plan repeats without end.
func (c *Config) forever() bool { return c.Epochs < 0 }

// epochs returns the number of epochs of a finite plan.
func (c *Config) epochs() int64 { return max(c.Epochs, 1) }

// world returns the number of ranks.
func (c *Config) world() int { return max(c.World, 1) }
