package sources

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/dataset"
)

// PartitionFilter selects the files of a dataset by their Hive partition
// values (the key=value directories between the root and a file), before
// any file is opened. Values compare as numbers when both sides are
// decimal numbers, else as strings. Make one with [Eq], [Ne], [Lt], [Le],
// [Gt], [Ge], [Between], [In], [Not], [And] and [Or]; give it to [Where].
type PartitionFilter struct{ e dataset.Expr }

func (f PartitionFilter) String() string {
	if f.e == nil {
		return "<none>"
	}
	return f.e.String()
}

// Eq keeps files whose partition column col equals value.
func Eq(col, value string) PartitionFilter { return PartitionFilter{dataset.Eq(col, value)} }

// Ne keeps files whose partition column col differs from value.
func Ne(col, value string) PartitionFilter { return PartitionFilter{dataset.Ne(col, value)} }

// Lt keeps files whose partition column col is less than value.
func Lt(col, value string) PartitionFilter { return PartitionFilter{dataset.Lt(col, value)} }

// Le keeps files whose partition column col is at most value.
func Le(col, value string) PartitionFilter { return PartitionFilter{dataset.Le(col, value)} }

// Gt keeps files whose partition column col is greater than value.
func Gt(col, value string) PartitionFilter { return PartitionFilter{dataset.Gt(col, value)} }

// Ge keeps files whose partition column col is at least value.
func Ge(col, value string) PartitionFilter { return PartitionFilter{dataset.Ge(col, value)} }

// Between keeps files whose partition column col lies in [lo, hi].
func Between(col, lo, hi string) PartitionFilter {
	return PartitionFilter{dataset.Between(col, lo, hi)}
}

// In keeps files whose partition column col is one of values.
func In(col string, values ...string) PartitionFilter {
	return PartitionFilter{dataset.In(col, values...)}
}

// Not keeps the files f drops.
func Not(f PartitionFilter) PartitionFilter { return PartitionFilter{dataset.Not(f.e)} }

// And keeps the files every filter keeps.
func And(fs ...PartitionFilter) PartitionFilter { return PartitionFilter{dataset.And(exprs(fs)...)} }

// Or keeps the files some filter keeps.
func Or(fs ...PartitionFilter) PartitionFilter { return PartitionFilter{dataset.Or(exprs(fs)...)} }

func exprs(fs []PartitionFilter) []dataset.Expr {
	es := make([]dataset.Expr, len(fs))
	for i, f := range fs {
		es[i] = f.e
	}
	return es
}

// Where reads only the files that f keeps. A filter that names a column
// the dataset's paths do not have fails the run when it starts.
func Where(f PartitionFilter) Option {
	return Option{"Where", func(c *config) error {
		if f.e == nil {
			return fmt.Errorf("sources: Where of a zero PartitionFilter")
		}
		c.where = f.e
		return nil
	}}
}
