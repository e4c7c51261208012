package sources

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/pqcol"
)

// tri is a value of three-valued logic, ordered so that And is the
// minimum, Or the maximum and Not the reflection.
type tri uint8

const (
	triFalse tri = 0
	triNull  tri = 1 // unknown: a comparison with null
	triTrue  tri = 2
)

// filterState is one fragment reader's buffers for evaluating a
// predicate.
type filterState struct {
	cols []pqcol.Column  // per filter leaf the plan does not read
	ptrs []*pqcol.Column // per filter leaf: where it was read
	bufs [][]tri         // per depth of the filter tree
	keep []bool
}

// newState returns the buffers for evaluating p, or nil if p is nil.
func (p *predicate) newState() *filterState {
	if p == nil {
		return nil
	}
	return &filterState{cols: make([]pqcol.Column, len(p.leaves)), ptrs: make([]*pqcol.Column, len(p.leaves))}
}

// filled reports whether the filter reads plan column buffer i; a nil
// predicate reads none.
func (p *predicate) filled(i int) bool { return p != nil && p.inPlan[i] }

// filterSpan reads the filter's columns for the rows of sp (into the
// plan's buffers planCols where the plan reads them too) and evaluates
// the filter. It returns which rows are kept, nil if all are, and whether
// any is. The spans it is given are those that narrow left.
func (p *predicate) filterSpan(ctx context.Context, r *pqcol.Reader, st *filterState, sp span, planCols []pqcol.Column) (keep []bool, some bool, err error) {
	if sp.from == sp.to {
		return nil, false, nil
	}
	for j, leaf := range p.leaves {
		dst := &st.cols[j]
		if s := p.slots[j]; s >= 0 {
			dst = &planCols[s]
		}
		if err := r.ReadColumnRange(ctx, sp.rg, leaf, sp.from, sp.to, dst); err != nil {
			return nil, false, err
		}
		st.ptrs[j] = dst
	}
	n := int(sp.to - sp.from)
	res, err := p.eval(&p.root, st, n, 0)
	if err != nil {
		return nil, false, err
	}
	st.keep = grow(st.keep, n)
	kept := 0
	for i, t := range res {
		st.keep[i] = t == triTrue
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
func (p *predicate) eval(node *pnode, st *filterState, n, depth int) ([]tri, error) {
	if len(st.bufs) <= depth {
		st.bufs = append(st.bufs, nil)
	}
	st.bufs[depth] = grow(st.bufs[depth], n)
	out := st.bufs[depth]
	switch node.op {
	case opNot:
		sub, err := p.eval(&node.subs[0], st, n, depth+1)
		if err != nil {
			return nil, err
		}
		for i, t := range sub {
			out[i] = triTrue - t
		}
	case opAnd, opOr:
		and := node.op == opAnd
		fill := triFalse
		if and {
			fill = triTrue
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

// keptIDs returns the IDs of the span's rows at the given offsets from
// sp.from, which must be ascending and not empty.
func keptIDs(sp span, rows []uint32) flow.IDs {
	first, last := rows[0], rows[len(rows)-1]
	ids := flow.OrdinalIDs(sp.id, uint64(sp.first)+uint64(first), int(last-first)+1)
	if len(rows) == ids.Len() {
		return ids
	}
	sel := flow.Alloc[uint32](len(rows))
	for _, r := range rows {
		sel = append(sel, r-first)
	}
	ids.Keep(sel)
	return ids
}

// keptRows returns the offsets of the rows that keep keeps among n, or
// nil if keep is nil (every row is kept).
func keptRows(keep []bool, n int) []uint32 {
	if keep == nil {
		return nil
	}
	rows := make([]uint32, 0, n)
	for i, k := range keep[:n] {
		if k {
			rows = append(rows, uint32(i))
		}
	}
	return rows
}
