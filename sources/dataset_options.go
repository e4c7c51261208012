package sources

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/io/datasource"
)

type datasetOption func(*datasource.Settings) error

func (o datasetOption) ApplyParquet(s *datasource.Settings) error { return o(s) }
func (o datasetOption) ApplyCSV(s *datasource.Settings) error     { return o(s) }
func (o datasetOption) ApplyJSONL(s *datasource.Settings) error   { return o(s) }

// Files reads the given files, directories and globs instead of the whole
// root: the root then only anchors relative paths, row IDs and Hive
// partition columns, and every path must lie under it. Given more than
// once, the paths add up.
func Files(paths ...string) DatasetOption {
	paths = append([]string(nil), paths...)
	return datasetOption(func(c *datasource.Settings) error {
		if len(paths) == 0 {
			return fmt.Errorf("sources: Files(): no paths")
		}
		c.Paths = append(c.Paths, paths...)
		return nil
	})
}

// WholeFiles makes every file one fragment. By default a Parquet file's
// fragments are its row groups, split further by parquet.MaxRows (which
// then does not apply), and an uncompressed CSV or JSON Lines file's are
// byte ranges of text.PartitionBytes.
func WholeFiles() DatasetOption {
	return datasetOption(func(c *datasource.Settings) error { c.Plan.WholeFiles = true; return nil })
}

// ShuffleWindow sets how fragments are shuffled: 0 keeps the plan order
// (files sorted by path, fragments in file order; the default); -1
// shuffles all fragments; k > 0 shuffles the files, then fragments through
// a shuffle buffer of k, opening file footers only as the buffer needs
// them. Shuffles are seeded by the pipeline's seed (flow.Pipeline.WithSeed)
// and the epoch: the same seed and epoch give the same order on every run.
func ShuffleWindow(k int) DatasetOption {
	return datasetOption(func(c *datasource.Settings) error {
		if k < -1 {
			return fmt.Errorf("sources: ShuffleWindow(%d): want -1, 0 or a window size", k)
		}
		c.Plan.Window = k
		return nil
	})
}
