package sources

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/dataset"
	"github.com/rowflow/rowflow/rowid"
)

// Option configures a source. Each source documents the options it takes;
// giving it another one is an error.
type Option struct {
	name  string
	apply func(*config) error
}

type config struct {
	name          string
	base          rowid.ID
	partitionSize int
	chunkSize     int

	// Parquet datasets.
	paths       []string
	wholeFiles  bool
	maxRows     int64
	columns     map[string]bool
	rename      map[string]string // user name -> raw column name
	window      int
	seed        *uint64
	epochs      int64
	rank, world int
	shardEnv    bool
	where       dataset.Expr
	rowFilter   Filter
	trace       bool
	maxPage     int64
	skip        *SkipReport
}

func defaults(name string) config {
	return config{name: name, base: rowid.FromString(name), partitionSize: 16384, chunkSize: 1024,
		maxRows: 65536, epochs: 1}
}

// PartitionSize sets how many values make one partition (default 16384).
// Partitions are what parallel workers take turns on.
func PartitionSize(n int) Option {
	return Option{"PartitionSize", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("sources: PartitionSize(%d): must be at least 1", n)
		}
		c.partitionSize = n
		return nil
	}}
}

// ChunkSize sets the most values one chunk carries (default 1024).
func ChunkSize(n int) Option {
	return Option{"ChunkSize", func(c *config) error {
		if n < 1 {
			return fmt.Errorf("sources: ChunkSize(%d): must be at least 1", n)
		}
		c.chunkSize = n
		return nil
	}}
}

// Named names the source in errors and derives its row IDs from name:
// row i gets rowid.Ordinal(i).Combine(rowid.FromString(name)). Two sources
// that are mixed or joined should have different names.
func Named(name string) Option {
	return Option{"Named", func(c *config) error {
		c.name, c.base = name, rowid.FromString(name)
		return nil
	}}
}

// build applies opts to the defaults, accepting only the options allowed.
func build(name string, opts []Option, allowed ...string) (config, error) {
	c := defaults(name)
	for _, o := range opts {
		if o.apply == nil {
			return c, fmt.Errorf("sources: %s: zero Option", name)
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == o.name
		}
		if !ok {
			return c, fmt.Errorf("sources: %s does not take option %s", name, o.name)
		}
		if err := o.apply(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}
