package main

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/rowflow/rowflow/sources"
)

// projection renames and selects the columns of text records, as the
// Parquet source's Rename and Columns do for Parquet: -rename old=new
// first, then -columns by the new names, in the order given.
type projection struct {
	rename  map[string]string
	columns []string // nil: every column, in the record's order
	strict  bool     // a column that -columns names must be in every record
	drop    []string // columns left out (with columns nil)

	mu   sync.Mutex
	last []string // the input names the plan below is for
	plan projected
}

// projected is what a projection does to records with the same names:
// the output's names, and for each the index of its input value (-1:
// absent, null).
type projected struct {
	names []string
	from  []int
}

// newProjection parses the -columns and -rename flags.
func newProjection(columns, rename string, strict bool) (*projection, error) {
	p := &projection{rename: map[string]string{}, strict: strict}
	if rename != "" {
		for _, pair := range strings.Split(rename, ",") {
			old, new, ok := strings.Cut(pair, "=")
			if !ok || old == "" || new == "" {
				return nil, fmt.Errorf("%w: -rename %q: want old=new[,old=new]", errUsage, rename)
			}
			p.rename[old] = new
		}
	}
	if columns != "" {
		p.columns = strings.Split(columns, ",")
		if i := slices.Index(p.columns, ""); i >= 0 {
			return nil, fmt.Errorf("%w: -columns %q: column %d has no name", errUsage, columns, i+1)
		}
	}
	return p, nil
}

// apply returns r renamed and with only the chosen columns. Records that
// share their names (those of one file) share the output's names too.
func (p *projection) apply(r sources.Record) (sources.Record, error) {
	pl, err := p.planFor(r.Names)
	if err != nil {
		return sources.Record{}, err
	}
	vals := make([]any, len(pl.from))
	for i, j := range pl.from {
		if j >= 0 {
			vals[i] = r.Values[j]
		}
	}
	return sources.Record{Names: pl.names, Values: vals}, nil
}

// planFor returns the plan of records with the input names in.
func (p *projection) planFor(in []string) (projected, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last != nil && len(in) == len(p.last) && (len(in) == 0 || &in[0] == &p.last[0]) {
		return p.plan, nil
	}
	renamed := make([]string, len(in))
	for i, n := range in {
		renamed[i] = n
		if to, ok := p.rename[n]; ok {
			renamed[i] = to
		}
	}
	var pl projected
	if p.columns == nil {
		for i, n := range renamed {
			if !slices.Contains(p.drop, n) {
				pl.names = append(pl.names, n)
				pl.from = append(pl.from, i)
			}
		}
	} else {
		pl.names = p.columns
		for _, c := range p.columns {
			j := slices.Index(renamed, c)
			if j < 0 && p.strict {
				return projected{}, fmt.Errorf("-columns: the record has no column %q (its columns, after -rename: %s)", c, strings.Join(renamed, ", "))
			}
			pl.from = append(pl.from, j)
		}
	}
	p.last, p.plan = in, pl
	return pl, nil
}
