package sources

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/dataset"
	"github.com/rowflow/rowflow/internal/filter"
)

// parquetConfig is the configuration of a Parquet source: these options
// are the one place where the dataset planner's settings are declared,
// defaulted and checked.
type parquetConfig struct {
	common
	plan        dataset.Config // all but the seed and an environment rank
	seed        *uint64        // nil: the pipeline's seed
	rankFromEnv bool           // the rank and world come from the environment at run start
	completions int            // RankFromEnv's Kubernetes completion count
	paths       []string
	columns     map[string]bool
	rename      map[string]string // user name -> raw column name
	rowFilter   *filter.Expr
	trace       bool
	maxPage     int64
	maxRead     int64 // pqcol.MaxReadSize; 0 keeps pqcol's default
	skip        *SkipReport
}

// DefaultMaxRows is the most rows of a fragment unless [MaxRows] says
// otherwise.
const DefaultMaxRows = 65536

// buildParquet applies opts to the defaults.
func buildParquet(opts []ParquetOption) (parquetConfig, error) {
	c := parquetConfig{common: defaultCommon("parquet"), plan: dataset.Config{MaxRows: DefaultMaxRows, Epochs: 1}}
	for _, o := range opts {
		if o == nil {
			return c, fmt.Errorf("sources: parquet: nil option")
		}
		if err := o.applyParquet(&c); err != nil {
			return c, err
		}
	}
	if c.plan.WholeFiles {
		c.plan.MaxRows = 0 // a whole file is one fragment
	}
	return c, nil
}

// Files reads the given files, directories and globs instead of the whole
// root: the root then only anchors relative paths, row IDs and Hive
// partition columns, and every path must lie under it. Given more than
// once, the paths add up.
func Files(paths ...string) ParquetOption {
	paths = append([]string(nil), paths...)
	return parquetOption(func(c *parquetConfig) error {
		if len(paths) == 0 {
			return fmt.Errorf("sources: Files(): no paths")
		}
		c.paths = append(c.paths, paths...)
		return nil
	})
}

// RowGroups makes every row group a fragment (the default): partitions are
// row groups, split further by [MaxRows].
func RowGroups() ParquetOption {
	return parquetOption(func(c *parquetConfig) error { c.plan.WholeFiles = false; return nil })
}

// WholeFiles makes every file one fragment; [MaxRows] then does not apply.
func WholeFiles() ParquetOption {
	return parquetOption(func(c *parquetConfig) error { c.plan.WholeFiles = true; return nil })
}

// MaxRows splits row groups of more than n rows into fragments of at most
// n rows (default [DefaultMaxRows]), bounding the memory one fragment
// takes and letting parallel workers share a large row group. n must be
// at least 1.
func MaxRows(n int64) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if n < 1 {
			return fmt.Errorf("sources: MaxRows(%d): must be at least 1", n)
		}
		c.plan.MaxRows = n
		return nil
	})
}

// Columns reads only the named columns (user names, after [Rename]);
// struct fields of other columns stay zero. Columns that are not read are
// not decoded. A name that is not a column of a file fails the run when
// the file is opened. Given more than once, the names add up.
func Columns(names ...string) ParquetOption {
	names = append([]string(nil), names...)
	return parquetOption(func(c *parquetConfig) error {
		if c.columns == nil {
			c.columns = map[string]bool{}
		}
		for _, n := range names {
			c.columns[n] = true
		}
		return nil
	})
}

// Rename reads the file column raw under the name user: a struct field
// tagged user reads column raw. Nested columns are named by their path
// joined with ".".
func Rename(raw, user string) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
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

// ShuffleWindow sets how fragments are shuffled: 0 keeps the plan order
// (files sorted by path, fragments in file order; the default); -1
// shuffles all fragments; k > 0 shuffles the files, then fragments through
// a shuffle buffer of k, opening file footers only as the buffer needs
// them. Shuffles are seeded by [Seed] (or the pipeline's seed) and the
// epoch: the same seed and epoch give the same order on every run.
func ShuffleWindow(k int) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if k < -1 {
			return fmt.Errorf("sources: ShuffleWindow(%d): want -1, 0 or a window size", k)
		}
		c.plan.Window = k
		return nil
	})
}

// Seed seeds the source's shuffles. Without it, the pipeline's seed
// ([flow.Pipeline.WithSeed]) is used.
func Seed(seed uint64) ParquetOption {
	return parquetOption(func(c *parquetConfig) error { c.seed = &seed; return nil })
}

// Epochs reads the dataset n times (default 1), each epoch shuffled anew;
// any negative n repeats it forever. Batch numbers keep increasing across
// epochs. n = 0 is an error. It sets the epoch count of the pipeline that
// reads the source: it is flow.Pipeline.Epochs(n), which the pipeline may
// call again to change it.
func Epochs(n int64) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if n == 0 {
			return fmt.Errorf("sources: Epochs(0): want at least 1, or a negative count for forever")
		}
		c.plan.Epochs = n
		return nil
	})
}

// Rank reads only the fragments of rank out of world ranks: fragment j
// of each epoch's order goes to rank j % world. The union over all ranks
// is the whole dataset, with no fragment read twice. It replaces
// [RankFromEnv].
func Rank(rank, world int) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if world < 1 || rank < 0 || rank >= world {
			return fmt.Errorf("sources: Rank(%d, %d): want 0 <= rank < world", rank, world)
		}
		c.plan.Rank, c.plan.World, c.rankFromEnv = rank, world, false
		return nil
	})
}

// RankFromEnv takes the rank and world size from the environment when
// each run starts (not when the source is built), by the conventions of
// package [ranks]: RANK and WORLD_SIZE (torchrun), OMPI_COMM_WORLD_RANK and
// OMPI_COMM_WORLD_SIZE (Open MPI), PMI_RANK and PMI_SIZE,
// JOB_COMPLETION_INDEX with completions as the job's count (Kubernetes
// Indexed Jobs; pass 0 if unused), or the Slurm array variables. With none
// of them set, the source reads everything; variables that are malformed,
// partial or disagree fail the run. It replaces [Rank].
func RankFromEnv(completions int) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		c.rankFromEnv, c.completions = true, completions
		return nil
	})
}

// Trace fills the trace columns: struct fields tagged `parquet:"__file"`
// (a string: the file's path relative to the root), `parquet:"__row_group"`
// and `parquet:"__row_index"` (integers: the row group, and the row's index
// in its file).
func Trace() ParquetOption {
	return parquetOption(func(c *parquetConfig) error { c.trace = true; return nil })
}

// MaxPageSize caps the decoded size of one Parquet page (default 256 MiB).
// A page over the cap fails its fragment with an error instead of
// allocating: a small file cannot make the reader take gigabytes. bytes
// must be positive.
func MaxPageSize(bytes int64) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if bytes < 1 {
			return fmt.Errorf("sources: MaxPageSize(%d): must be positive", bytes)
		}
		c.maxPage = bytes
		return nil
	})
}

// MaxReadSize caps the memory that one column of one fragment may decode
// to, values and levels (default 128 MiB, pqcol's DefaultMaxReadSize).
// Pages under [MaxPageSize] can still amplify: one dictionary value
// repeated by every row, pages of millions of nulls, a row group of many
// full pages. A fragment that would pass the cap fails with an error
// naming the file, row group, column and page, before the page that
// would pass it is decoded into memory; [MaxRows] makes fragments of
// legitimately large row groups smaller. bytes must be positive.
func MaxReadSize(bytes int64) ParquetOption {
	return parquetOption(func(c *parquetConfig) error {
		if bytes < 1 {
			return fmt.Errorf("sources: MaxReadSize(%d): must be positive", bytes)
		}
		c.maxRead = bytes
		return nil
	})
}
