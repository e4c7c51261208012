package datasource

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/rowid"
)

// Common is the configuration every source has.
type Common struct {
	Name      string
	Base      rowid.ID // rowid.FromString(Name)
	ChunkSize int
}

// NewCommon returns the defaults of a source named name.
func NewCommon(name string) Common {
	return Common{Name: name, Base: rowid.FromString(name), ChunkSize: 1024}
}

// Describe returns what of c goes into a source's Info.Settings. The
// chunk size does not: it changes how rows travel, not which rows, their
// IDs or their partitions.
func (c Common) Describe() string {
	return fmt.Sprintf("name=%q base=%v", c.Name, c.Base)
}

// Stream is the configuration of a source that reads its values in order
// from memory or a channel, not from files: sources.Slice and Generate,
// and the go-streams inputs of interop/gostreams. The options of package
// sources write it. Own holds, while the options are applied, a pointer
// to the constructor's own configuration (the go-streams adapters'),
// which the constructor's own options assert; it is nil for Slice and
// Generate.
type Stream struct {
	Common
	PartitionItems int
	Own            any
}

// Settings is the configuration every source of a dataset of files has,
// which the options of package sources write: they are the one place
// where the dataset planner's settings are declared, defaulted and
// checked. Format holds the settings of the source's format while the
// options are applied: a pointer to the format package's own
// configuration, which its options assert.
type Settings struct {
	Common
	Plan   dataset.Config // all but the seed and the rank, which the run gives
	Paths  []string       // given with Files; nil: everything under the root
	Skip   any            // *sources.SkipReport, given with SkipBad; nil: fail
	Format any
}

// NewSettings returns the defaults of a dataset source named name.
func NewSettings(name string) Settings {
	return Settings{Common: NewCommon(name), Plan: dataset.Config{Epochs: 1}}
}

// Discover finds the files of format f: the paths given with Files under
// root, or everything under root.
func (s *Settings) Discover(root string, f dataset.Format) (*dataset.Dataset, error) {
	if s.Paths != nil {
		return f.DiscoverRoot(root, s.Paths...)
	}
	return f.Discover(root)
}

// DiscoverWhere is [Settings.Discover] that may leave out the files that
// the partition filter where is false for: in a bucket, their Hive
// directories are not listed. where names the raw Hive columns.
func (s *Settings) DiscoverWhere(root string, f dataset.Format, where *filter.Expr) (*dataset.Dataset, error) {
	if s.Paths != nil {
		return f.DiscoverWhere(where, root, s.Paths...)
	}
	return f.DiscoverWhere(where, "", root)
}

// NewPlan plans a run over ds, with the seed and rank the run gives.
func (s *Settings) NewPlan(ds *dataset.Dataset, env flow.Env, md dataset.Metadata) (*dataset.Plan, error) {
	cfg := s.Plan
	cfg.Seed, cfg.Metadata = env.Seed, md
	cfg.Rank, cfg.World = env.Rank, env.World
	cfg.Epochs = -1 // the run asks for each of its epochs
	return dataset.New(ds, cfg)
}

// Describe returns the text of the Info.Settings of a dataset source over
// root: the files given with Files (relative to root), the plan and the
// common options, then format, the format's own. The rank and the seed
// are the run's, which the pipeline's fingerprint covers. Where the
// dataset lies is not covered, as row IDs do not depend on it either: the
// same pipeline over a copy of a dataset elsewhere writes the same
// output; nor are the files' contents. The epoch count is not either: the
// pipeline's, which its fingerprint covers, decides.
func (s *Settings) Describe(root, format string) string {
	paths := make([]string, len(s.Paths))
	absRoot, rootErr := filepath.Abs(root)
	for i, p := range s.Paths {
		// A relative path is relative to root already; an absolute one
		// is made relative to it, where it lies under it.
		if filepath.IsAbs(p) && rootErr == nil {
			if rel, err := filepath.Rel(absRoot, p); err == nil {
				p = rel
			}
		}
		if objstore.IsURL(p) {
			// A URL under an object root is made relative to it, and
			// kept whole otherwise.
			if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(root, "/")+"/"); ok && objstore.IsURL(root) {
				p = rel
			} else {
				paths[i] = p
				continue
			}
		}
		paths[i] = filepath.ToSlash(filepath.Clean(p))
	}
	p := s.Plan
	where := ""
	if p.Where != nil {
		where = p.Where.String()
	}
	// "seed=pipeline" stays from when a source could have a seed of its
	// own, so that fingerprints, and what was written under them, stay.
	return fmt.Sprintf("files=%q %s whole=%t maxRows=%d window=%d seed=pipeline where=%q %s",
		paths, s.Common.Describe(), p.WholeFiles, p.MaxRows, p.Window, where, format)
}
