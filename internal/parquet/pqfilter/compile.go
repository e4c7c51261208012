// Package pqfilter compiles a filter ([filter.Expr]) against the columns
// of one Parquet file and applies it: it rules out row groups by their
// footer statistics and row ranges by the page index ([Predicate.Pruned],
// [Predicate.PageRanges]), then tests the remaining rows one by one
// ([Predicate.FilterRows]), in SQL's three-valued logic. Package sources
// documents the behaviour users see (sources/parquet.RowFilter).
package pqfilter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Predicate is a filter compiled for one file. It is safe for concurrent
// use; each reading goroutine has its own [State].
type Predicate struct {
	path   string // the file's, for errors
	root   pnode
	leaves []int      // the leaf columns the filter reads, each once
	infos  []statInfo // per entry of leaves: how to read its statistics
	slots  []int      // per entry of leaves: the plan's column buffer that receives it, or -1
	inPlan []bool     // per plan column buffer: the filter reads it
	prune  []bool     // per row group: no row can match
}

// pnode is a node of a compiled filter: a comparison (term) or a logical
// operation on subs.
type pnode struct {
	op   filter.Op
	col  int  // comparisons: the column, an index into Predicate.leaves
	term term // comparisons
	subs []pnode
}

// File is what compiling a filter needs to know of a file besides its
// columns.
type File struct {
	Path string // names the file in errors
	// Hive lists the file's Hive partition columns, which a row filter
	// cannot name.
	Hive []string
	// Rename maps user column names to the file's (dotted leaf paths).
	Rename map[string]string
}

// Compile compiles e for the file r, whose reader reads the leaf columns
// planLeaves into its column buffers, and evaluates it on the row groups'
// statistics. Its errors name the file and the column.
func Compile(e *filter.Expr, file File, r *pqcol.Reader, planLeaves []int) (*Predicate, error) {
	p := &Predicate{path: file.Path, inPlan: make([]bool, len(planLeaves))}
	root, err := p.compile(e, file, r)
	if err != nil {
		return nil, err
	}
	p.root = root
	for _, leaf := range p.leaves {
		slot := slices.Index(planLeaves, leaf)
		p.slots = append(p.slots, slot)
		if slot >= 0 {
			p.inPlan[slot] = true
		}
	}
	p.prune = p.prunedRowGroups(r.File().Metadata(), len(r.Leaves()))
	return p, nil
}

func (p *Predicate) compile(e *filter.Expr, file File, r *pqcol.Reader) (pnode, error) {
	if e.IsLogic() {
		node := pnode{op: e.Op}
		for _, s := range e.Subs {
			sub, err := p.compile(s, file, r)
			if err != nil {
				return pnode{}, err
			}
			node.subs = append(node.subs, sub)
		}
		return node, nil
	}
	leaf, err := filterLeaf(file, r, e.Col)
	if err != nil {
		return pnode{}, err
	}
	t, err := newTerm(leaf, e.Op, e.Vals)
	if err != nil {
		return pnode{}, fmt.Errorf("pqfilter: %s: column %q (%s): %w", file.Path, e.Col, assemble.TypeName(leaf), err)
	}
	if e.Op == filter.In && len(e.Vals) == 0 {
		// In of no values is Or of no comparisons: false, even where the
		// column is null, as for Hive values (filter.MatchText).
		return pnode{op: filter.Or}, nil
	}
	col := slices.Index(p.leaves, leaf.Index)
	if col < 0 {
		col = len(p.leaves)
		p.leaves = append(p.leaves, leaf.Index)
		p.infos = append(p.infos, statInfoOf(leaf))
	}
	return pnode{op: e.Op, col: col, term: t}, nil
}

// filterLeaf finds the leaf column a filter names, and checks that a
// filter can compare it.
func filterLeaf(file File, r *pqcol.Reader, name string) (*pqcol.Leaf, error) {
	raw := name
	if rr, ok := file.Rename[name]; ok {
		raw = rr
	}
	leaves := r.Leaves()
	for _, suffix := range []string{"", ".list.element", ".list.item"} {
		for i := range leaves {
			if leaves[i].PathString() != raw+suffix {
				continue
			}
			leaf := &leaves[i]
			if leaf.MaxRepetitionLevel > 0 {
				return nil, fmt.Errorf("pqfilter: %s: column %q is repeated; a row filter compares columns of one value per row", file.Path, name)
			}
			return leaf, nil
		}
	}
	if slices.Contains(file.Hive, name) {
		return nil, fmt.Errorf("pqfilter: %s has no column %q: it is a Hive partition column, which Where filters", file.Path, name)
	}
	names := make([]string, len(leaves))
	for i := range leaves {
		names[i] = leaves[i].PathString()
	}
	return nil, fmt.Errorf("pqfilter: %s has no column %q (columns: %s)", file.Path, name, strings.Join(names, ", "))
}

// uncomparable returns why a leaf's values cannot be compared as their
// physical values, or "".
func uncomparable(leaf *pqcol.Leaf) string {
	t := leaf.Node.Type()
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *pqformat.DecimalType, *pqformat.Float16Type:
			return "its logical type does not compare as its physical values"
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Decimal, deprecated.Interval:
			return "its converted type does not compare as its physical values"
		}
	}
	if leaf.Kind == parquet.Int96 || leaf.Kind < 0 {
		return "the type cannot be filtered"
	}
	return ""
}

// timeUnit returns, for a DATE or TIMESTAMP leaf, the number of its units
// in a second (0 for DATE, whose unit is a day), and whether it is one.
func timeUnit(leaf *pqcol.Leaf) (perSecond int64, ok bool) {
	t := leaf.Node.Type()
	if lt := t.LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *pqformat.DateType:
			return 0, leaf.Kind == parquet.Int32
		case *pqformat.TimestampType:
			if leaf.Kind != parquet.Int64 {
				return 0, false
			}
			switch v.Unit.Value.(type) {
			case *pqformat.MilliSeconds:
				return 1e3, true
			case *pqformat.MicroSeconds:
				return 1e6, true
			case *pqformat.NanoSeconds:
				return 1e9, true
			}
			return 0, false
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Date:
			return 0, leaf.Kind == parquet.Int32
		case deprecated.TimestampMillis:
			return 1e3, leaf.Kind == parquet.Int64
		case deprecated.TimestampMicros:
			return 1e6, leaf.Kind == parquet.Int64
		}
	}
	return 0, false
}
