package sources

import (
	"fmt"
	"os"

	"github.com/rowflow/rowflow/internal/dataset"
)

// The options of [Parquet] and [ParquetRecords].

// Files reads the given files, directories and globs instead of the whole
// root: the root then only anchors relative paths, row IDs and Hive
// partition columns, and every path must lie under it.
func Files(paths ...string) Option {
	return Option{"Files", func(c *config) error {
		if len(paths) == 0 {
			return fmt.Errorf("sources: Files(): no paths")
		}
		c.paths = append(c.paths, paths...)
		return nil
	}}
}

// RowGroups makes every row group a fragment (the default): partitions are
// row groups, split further by [MaxRows].
func RowGroups() Option {
	return Option{"RowGroups", func(c *config) error { c.wholeFiles = false; return nil }}
}

// WholeFiles makes every file one fragment.
func WholeFiles() Option {
	return Option{"WholeFiles", func(c *config) error { c.wholeFiles = true; return nil }}
}

// MaxRows splits row groups of more than n rows into fragments of at most
// n rows (default 65536), bounding the memory one fragment takes and
// letting parallel workers share a large row group.
func MaxRows(n int64) Option {
	return Option{"MaxRows", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("sources: MaxRows(%d): must be at least 1", n)
		}
		c.maxRows = n
		return nil
	}}
}

// Columns reads only the named columns (user names, after [Rename]);
// struct fields of other columns stay zero. Columns that are not read are
// not decoded.
func Columns(names ...string) Option {
	return Option{"Columns", func(c *config) error {
		if c.columns == nil {
			c.columns = map[string]bool{}
		}
		for _, n := range names {
			c.columns[n] = true
		}
		return nil
	}}
}

// Rename reads the file column raw under the name user: a struct field
// tagged user reads column raw. Nested columns are named by their path
// joined with ".".
func Rename(raw, user string) Option {
	return Option{"Rename", func(c *config) error {
		if c.rename == nil {
			c.rename = map[string]string{}
		}
		if prev, ok := c.rename[user]; ok && prev != raw {
			return fmt.Errorf("sources: Rename(%q, %q): %q already names column %q", raw, user, user, prev)
		}
		c.rename[user] = raw
		return nil
	}}
}

// ShuffleWindow sets how fragments are shuffled: 0 keeps the plan order
// (files sorted by path, fragments in file order; the default); -1
// shuffles all fragments; k > 0 shuffles the files, then fragments through
// a shuffle buffer of k, opening file footers only as the buffer needs
// them. Shuffles are seeded by [Seed] (or the pipeline's seed) and the
// epoch: the same seed and epoch give the same order on every run.
func ShuffleWindow(k int) Option {
	return Option{"ShuffleWindow", func(c *config) error {
		if k < -1 {
			return fmt.Errorf("sources: ShuffleWindow(%d): want -1, 0 or a window size", k)
		}
		c.window = k
		return nil
	}}
}

// Seed seeds the source's shuffles. Without it, the pipeline's seed
// ([flow.Pipeline.WithSeed]) is used.
func Seed(seed uint64) Option {
	return Option{"Seed", func(c *config) error { c.seed = &seed; return nil }}
}

// Epochs reads the dataset n times (default 1), each epoch shuffled anew;
// n < 0 repeats it forever. Batch numbers keep increasing across epochs.
func Epochs(n int64) Option {
	return Option{"Epochs", func(c *config) error {
		if n == 0 {
			return fmt.Errorf("sources: Epochs(0): want at least 1, or -1 for forever")
		}
		c.epochs = n
		return nil
	}}
}

// Shard reads only the fragments of rank out of world ranks: fragment j
// of each epoch's order goes to rank j % world. The union over all ranks
// is the whole dataset, with no fragment read twice.
func Shard(rank, world int) Option {
	return Option{"Shard", func(c *config) error {
		if world < 1 || rank < 0 || rank >= world {
			return fmt.Errorf("sources: Shard(%d, %d): want 0 <= rank < world", rank, world)
		}
		c.rank, c.world, c.shardEnv = rank, world, false
		return nil
	}}
}

// ShardFromEnv takes the rank and world size from the environment when a
// run starts: RANK and WORLD_SIZE (torchrun, MPI), JOB_COMPLETION_INDEX
// with completions as the job's count (Kubernetes Indexed Jobs; pass 0 if
// unused), or SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT. With none of
// them set, the source reads everything.
func ShardFromEnv(completions int) Option {
	return Option{"ShardFromEnv", func(c *config) error {
		rank, world, err := dataset.ShardFromEnv(os.LookupEnv, completions)
		if err != nil {
			return fmt.Errorf("sources: ShardFromEnv: %w", err)
		}
		c.rank, c.world = rank, world
		return nil
	}}
}

// Trace fills the trace columns: struct fields tagged `parquet:"__file"`
// (a string: the file's path relative to the root), `parquet:"__row_group"`
// and `parquet:"__row_index"` (integers: the row group, and the row's index
// in its file).
func Trace() Option {
	return Option{"Trace", func(c *config) error { c.trace = true; return nil }}
}

// MaxPageSize caps the decoded size of one Parquet page (default 256 MiB).
// A page over the cap fails its fragment with an error instead of
// allocating: a small file cannot make the reader take gigabytes.
func MaxPageSize(bytes int64) Option {
	return Option{"MaxPageSize", func(c *config) error {
		if bytes < 1 {
			return fmt.Errorf("sources: MaxPageSize(%d): must be positive", bytes)
		}
		c.maxPage = bytes
		return nil
	}}
}
