package sources

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/dataset"
)

// DatasetOption configures every source of a dataset of files: the Parquet
// sources, [CSV], [CSVRecords], [JSONL] and [JSONLRecords].
type DatasetOption interface {
	ParquetOption
	TextOption
}

// datasetConfig is the configuration every dataset source has: these
// options are the one place where the dataset planner's settings are
// declared, defaulted and checked.
type datasetConfig struct {
	common
	plan  dataset.Config // all but the seed and the rank, which the run gives
	seed  *uint64        // nil: the pipeline's seed
	paths []string
}

func defaultDataset(name string) datasetConfig {
	return datasetConfig{common: defaultCommon(name), plan: dataset.Config{Epochs: 1}}
}

// discover finds the files of format f: the paths given with Files under
// root, or everything under root.
func (c *datasetConfig) discover(root string, f dataset.Format) (*dataset.Dataset, error) {
	if c.paths != nil {
		return f.DiscoverRoot(root, c.paths...)
	}
	return f.Discover(root)
}

// newPlan plans a run over ds, with the seed and rank the run gives.
func (c *datasetConfig) newPlan(ds *dataset.Dataset, env flow.Env, md dataset.Metadata) (*dataset.Plan, error) {
	cfg := c.plan
	cfg.Seed, cfg.Metadata = env.Seed, md
	cfg.Rank, cfg.World = env.Rank, env.World
	cfg.Epochs = -1 // the run asks for each of its epochs (see Epochs)
	if c.seed != nil {
		cfg.Seed = *c.seed
	}
	return dataset.New(ds, cfg)
}

// settings returns the text of the Info.Settings of a dataset source over
// root: the files given with Files (relative to root), the plan and the
// common options, then format, the format's own. The rank is the run's,
// which the pipeline's fingerprint covers. Where the dataset lies is not
// covered, as row IDs do not depend on it either: the same pipeline over
// a copy of a dataset elsewhere writes the same output; nor are the
// files' contents. The epoch count is not either: the pipeline's, which
// its fingerprint covers, decides.
func (c *datasetConfig) settings(root, format string) string {
	paths := make([]string, len(c.paths))
	absRoot, rootErr := filepath.Abs(root)
	for i, p := range c.paths {
		// A relative path is relative to root already; an absolute one
		// is made relative to it, where it lies under it.
		if filepath.IsAbs(p) && rootErr == nil {
			if rel, err := filepath.Rel(absRoot, p); err == nil {
				p = rel
			}
		}
		paths[i] = filepath.ToSlash(filepath.Clean(p))
	}
	p := c.plan
	where, seed := "", "pipeline"
	if p.Where != nil {
		where = p.Where.String()
	}
	if c.seed != nil {
		seed = strconv.FormatUint(*c.seed, 10)
	}
	return fmt.Sprintf("files=%q %s whole=%t maxRows=%d window=%d seed=%s where=%q %s",
		paths, c.common.settings(), p.WholeFiles, p.MaxRows, p.Window, seed, where, format)
}

type datasetOption func(*datasetConfig) error

func (o datasetOption) applyParquet(c *parquetConfig) error { return o(&c.datasetConfig) }
func (o datasetOption) applyCSV(c *textConfig) error        { return o(&c.datasetConfig) }
func (o datasetOption) applyJSONL(c *textConfig) error      { return o(&c.datasetConfig) }

// Files reads the given files, directories and globs instead of the whole
// root: the root then only anchors relative paths, row IDs and Hive
// partition columns, and every path must lie under it. Given more than
// once, the paths add up.
func Files(paths ...string) DatasetOption {
	paths = append([]string(nil), paths...)
	return datasetOption(func(c *datasetConfig) error {
		if len(paths) == 0 {
			return fmt.Errorf("sources: Files(): no paths")
		}
		c.paths = append(c.paths, paths...)
		return nil
	})
}

// WholeFiles makes every file one fragment: for Parquet sources [MaxRows]
// then does not apply, for CSV and JSON Lines sources no file is split
// into byte ranges.
func WholeFiles() DatasetOption {
	return datasetOption(func(c *datasetConfig) error { c.plan.WholeFiles = true; return nil })
}

// ShuffleWindow sets how fragments are shuffled: 0 keeps the plan order
// (files sorted by path, fragments in file order; the default); -1
// shuffles all fragments; k > 0 shuffles the files, then fragments through
// a shuffle buffer of k, opening file footers only as the buffer needs
// them. Shuffles are seeded by [Seed] (or the pipeline's seed) and the
// epoch: the same seed and epoch give the same order on every run.
func ShuffleWindow(k int) DatasetOption {
	return datasetOption(func(c *datasetConfig) error {
		if k < -1 {
			return fmt.Errorf("sources: ShuffleWindow(%d): want -1, 0 or a window size", k)
		}
		c.plan.Window = k
		return nil
	})
}

// Seed seeds the source's shuffles. Without it, the pipeline's seed
// ([flow.Pipeline.WithSeed]) is used.
func Seed(seed uint64) DatasetOption {
	return datasetOption(func(c *datasetConfig) error { c.seed = &seed; return nil })
}

// Epochs reads the dataset n times (default 1), each epoch shuffled anew;
// any negative n repeats it forever. Partition numbers keep increasing across
// epochs. n = 0 is an error. It sets the epoch count of the pipeline that
// reads the source: it is flow.Pipeline.Epochs(n), which the pipeline may
// call again to change it.
func Epochs(n int64) DatasetOption {
	return datasetOption(func(c *datasetConfig) error {
		if n == 0 {
			return fmt.Errorf("sources: Epochs(0): want at least 1, or a negative count for forever")
		}
		c.plan.Epochs = n
		return nil
	})
}
