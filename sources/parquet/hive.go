package parquet

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/dataset"
)

// hiveColumns returns the Hive partition values of a file under their
// names after rename (user name to raw name), in path order. A column
// that rename gives several names, which struct fields allow, comes once
// under each.
func hiveColumns(part dataset.Partition, rename map[string]string) dataset.Partition {
	if len(rename) == 0 {
		return part
	}
	users := slices.Sorted(maps.Keys(rename))
	out := make(dataset.Partition, 0, len(part))
	for _, f := range part {
		named := false
		for _, u := range users {
			if rename[u] == f.Name {
				g := f
				g.Name, named = u, true
				out = append(out, g)
			}
		}
		if !named {
			out = append(out, f)
		}
	}
	return out
}

// rawWhere returns the partition filter e with the columns it names by
// the names that rename gives Hive columns (hive) replaced by their raw
// names, which the dataset's paths have. A name is looked up as
// [RowFilter] looks up a file column's. A name that Rename gives a file
// column, or the raw name of a Hive column that Rename renames, names no
// Hive column of the source: an error, which a filter on the raw Hive
// column of that name would hide.
func rawWhere(e *filter.Expr, rename map[string]string, hive []string) (*filter.Expr, error) {
	for _, col := range e.Columns(nil) {
		raw, renamed := rename[col]
		switch {
		case renamed && !slices.Contains(hive, raw):
			return nil, fmt.Errorf("parquet: Where names %q, the name Rename gives the file column %q: Where filters Hive partition columns, RowFilter the files' columns", col, raw)
		case !renamed && slices.Contains(hive, col) && slices.Contains(slices.Collect(maps.Values(rename)), col):
			return nil, fmt.Errorf("parquet: Where names the Hive column %q by its name in the paths, which Rename changes: name it as Rename does", col)
		}
	}
	return renameWhere(e, rename, func(raw string) bool { return slices.Contains(hive, raw) }), nil
}

// listingWhere is e with every column that Rename names given its raw
// name: the filter that a listing prunes Hive directories by, before the
// dataset's Hive columns are known. A column renamed from a file column
// is no directory's, so it prunes nothing, as rawWhere leaves it.
func listingWhere(e *filter.Expr, rename map[string]string) *filter.Expr {
	return renameWhere(e, rename, func(string) bool { return true })
}

// renameWhere replaces in e the names that rename gives the raw columns
// that take.
func renameWhere(e *filter.Expr, rename map[string]string, take func(raw string) bool) *filter.Expr {
	if e == nil || len(rename) == 0 {
		return e
	}
	out := *e
	if e.IsLogic() {
		out.Subs = make([]*filter.Expr, len(e.Subs))
		for i, s := range e.Subs {
			out.Subs[i] = renameWhere(s, rename, take)
		}
	} else if raw, ok := rename[e.Col]; ok && take(raw) {
		out.Col = raw
	}
	return &out
}
