package pqfilter

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// State is one reading goroutine's buffers for evaluating a [Predicate].
type State struct {
	cols []pqcol.Column  // per filter leaf the plan does not read
	ptrs []*pqcol.Column // per filter leaf: where it was read
	bufs [][]filter.Tri  // per depth of the filter tree
	keep []bool
}

// NewState returns the buffers for evaluating p, or nil if p is nil.
func (p *Predicate) NewState() *State {
	if p == nil {
		return nil
	}
	return &State{cols: make([]pqcol.Column, len(p.leaves)), ptrs: make([]*pqcol.Column, len(p.leaves))}
}

// Filled reports whether the filter reads plan column buffer i (the
// column planLeaves[i] of [Compile]); a nil predicate reads none.
func (p *Predicate) Filled(i int) bool { return p != nil && p.inPlan[i] }

// FilterRows reads the filter's columns for rows [from, to) of row group
// rg (into the plan's buffers planCols where the plan reads them too) and
// evaluates the filter. It returns which rows are kept, nil if all are,
// and whether any is. The slice is st's, valid until its next use.
func (p *Predicate) FilterRows(ctx context.Context, r *pqcol.Reader, st *State, rg int, from, to int64, planCols []pqcol.Column) (keep []bool, some bool, err error) {
	if from == to {
		return nil, false, nil
	}
	for j, leaf := range p.leaves {
		dst := &st.cols[j]
		if s := p.slots[j]; s >= 0 {
			dst = &planCols[s]
		}
		if err := r.ReadColumnRange(ctx, rg, leaf, from, to, dst); err != nil {
			return nil, false, err
		}
		st.ptrs[j] = dst
	}
	n := int(to - from)
	res, err := p.eval(&p.root, st, n, 0)
	if err != nil {
		return nil, false, fmt.Errorf("pqfilter: %s: row group %d, rows from %d: %w", p.path, rg, from, err)
	}
	st.keep = grow(st.keep, n)
	kept := 0
	for i, t := range res {
		st.keep[i] = t == filter.TriTrue
		if st.keep[i] {
			kept++
		}
	}
	switch kept {
	case 0:
		return nil, false, nil
	case n:
		return nil, true, nil
	}
	return st.keep, true, nil
}

// eval evaluates node on n rows into the buffer of its depth.
func (p *Predicate) eval(node *pnode, st *State, n, depth int) ([]filter.Tri, error) {
	if len(st.bufs) <= depth {
		st.bufs = append(st.bufs, nil)
	}
	st.bufs[depth] = grow(st.bufs[depth], n)
	out := st.bufs[depth]
	switch node.op {
	case filter.Not:
		sub, err := p.eval(&node.subs[0], st, n, depth+1)
		if err != nil {
			return nil, err
		}
		for i, t := range sub {
			out[i] = filter.TriTrue - t
		}
	case filter.And, filter.Or:
		and := node.op == filter.And
		fill := filter.TriFalse
		if and {
			fill = filter.TriTrue
		}
		for i := range out {
			out[i] = fill
		}
		for k := range node.subs {
			sub, err := p.eval(&node.subs[k], st, n, depth+1)
			if err != nil {
				return nil, err
			}
			if and {
				for i, t := range sub {
					out[i] = min(out[i], t)
				}
			} else {
				for i, t := range sub {
					out[i] = max(out[i], t)
				}
			}
		}
	default:
		if err := node.term.eval(st.ptrs[node.col], n, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// grow returns s with length n, reusing its storage when it can.
func grow[E any](s []E, n int) []E {
	if cap(s) < n {
		return make([]E, n)
	}
	return s[:n]
}
