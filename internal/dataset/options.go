package dataset

import (
	"errors"
	"fmt"
)

// Option configures a [Plan]. Options are checked by [New], which returns
// the first error.
type Option func(*config) error

type config struct {
	wholeFiles bool
	maxRows    int64
	window     int
	seed       uint64
	epochs     int64 // Forever for no limit
	rank       int
	world      int
	filter     Expr
	meta       Metadata
}

func defaultConfig() config {
	return config{epochs: 1, world: 1, meta: ParquetFooters{}}
}

// Forever, passed to [Epochs], makes the plan repeat without end.
const Forever = -1

// RowGroups makes every row group a fragment. This is the default, and
// the recommended mode: fragments are smaller and shuffle better.
func RowGroups() Option {
	return func(c *config) error { c.wholeFiles = false; return nil }
}

// WholeFiles makes every file one fragment (RowGroup -1). Ordering whole
// files needs no footer: a footer is read only when its fragment is
// yielded, to learn the row count. It cannot be combined with [MaxRows].
func WholeFiles() Option {
	return func(c *config) error { c.wholeFiles = true; return nil }
}

// MaxRows splits row groups of more than n rows into sub-partitions of at
// most n rows each (see [Fragment]). The default, 0, never splits.
func MaxRows(n int64) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("dataset: MaxRows(%d): negative", n)
		}
		c.maxRows = n
		return nil
	}
}

// ShuffleWindow sets how fragments are shuffled: 0 (the default) keeps plan
// order, -1 shuffles all fragments of an epoch together, and k > 0 shuffles
// the files, then the fragments through a buffer of k. See "Shuffling" in
// the package documentation.
func ShuffleWindow(k int) Option {
	return func(c *config) error {
		if k < -1 {
			return fmt.Errorf("dataset: ShuffleWindow(%d): must be -1, 0 or positive", k)
		}
		c.window = k
		return nil
	}
}

// Seed sets the seed of all random streams. The default is 0.
func Seed(seed uint64) Option {
	return func(c *config) error { c.seed = seed; return nil }
}

// Epochs sets the number of passes over the data: n >= 1, or [Forever].
// The default is 1.
func Epochs(n int64) Option {
	return func(c *config) error {
		if n < 1 && n != Forever {
			return fmt.Errorf("dataset: Epochs(%d): must be at least 1, or Forever", n)
		}
		c.epochs = n
		return nil
	}
}

// Shard keeps the fragments of one of world ranks: the fragment at index j
// of an epoch goes to rank j % world. The default is rank 0 of 1. See
// [ShardFromEnv] for reading rank and world from the environment.
func Shard(rank, world int) Option {
	return func(c *config) error {
		if world < 1 || rank < 0 || rank >= world {
			return fmt.Errorf("dataset: Shard(%d, %d): need 0 <= rank < world", rank, world)
		}
		c.rank, c.world = rank, world
		return nil
	}
}

// Where keeps only the files whose partition values match e. It is
// evaluated by [New], before any file is opened; every column e names must
// be a partition column of the dataset. The default keeps every file.
func Where(e Expr) Option {
	return func(c *config) error {
		if hasNil(e) {
			return errors.New("dataset: Where: nil expression")
		}
		c.filter = e
		return nil
	}
}

// WithMetadata sets how row-group sizes are read. The default is
// [ParquetFooters].
func WithMetadata(m Metadata) Option {
	return func(c *config) error {
		if m == nil {
			return errors.New("dataset: WithMetadata: nil Metadata")
		}
		c.meta = m
		return nil
	}
}
