package pqfilter

import (
	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// statInfo is what reading a column's statistics depends on.
type statInfo struct {
	leaf  int  // the leaf column
	bytes bool // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY: an absent minimum is ""
	// signed says whether the deprecated min and max fields hold usable
	// bounds: writers computed them with signed comparisons, which are
	// right only for signed numbers.
	signed bool
}

func statInfoOf(leaf *pqcol.Leaf) statInfo {
	s := statInfo{leaf: leaf.Index}
	switch leaf.Kind {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		s.bytes = true
	case parquet.Int32, parquet.Int64:
		s.signed = !assemble.Unsigned(leaf)
	case parquet.Float, parquet.Double:
		s.signed = true
	}
	return s
}

// colStats is what statistics say about the values of one filter column
// over some rows: a column chunk or a page.
type colStats struct {
	allNull bool // every value is null
	// min and max are the PLAIN-encoded bounds of the non-null values, or
	// nil if the statistics give none that the filter can use.
	min, max []byte
}

// chunkStats returns the statistics of a filter column's chunk in row
// group g.
func chunkStats(md *pqformat.FileMetaData, g *pqformat.RowGroup, info *statInfo) colStats {
	cm := &g.Columns[info.leaf].MetaData
	st := &cm.Statistics
	if cm.NumValues > 0 && st.NullCount == cm.NumValues {
		return colStats{allNull: true}
	}
	minb, maxb, ok := bounds(md, info, st)
	if !ok {
		return colStats{}
	}
	return colStats{min: minb, max: maxb}
}

// prunedRowGroups evaluates the filter on the statistics of every row
// group: true for those where it cannot be true.
func (p *Predicate) prunedRowGroups(md *pqformat.FileMetaData, leaves int) []bool {
	prune := make([]bool, len(md.RowGroups))
	st := make([]colStats, len(p.leaves))
	for rg := range md.RowGroups {
		g := &md.RowGroups[rg]
		if len(g.Columns) != leaves {
			continue // a corrupt footer: reading the row group reports it
		}
		for j := range p.leaves {
			st[j] = chunkStats(md, g, &p.infos[j])
		}
		canTrue, _ := p.root.possible(st)
		prune[rg] = !canTrue
	}
	return prune
}

// possible says whether the node can be true, and whether it can be
// false, on some row of a set of rows whose filter columns have the
// statistics st (per entry of Predicate.leaves). Unknown (null) outcomes
// are neither; they stay unknown through Not, and never make And or Or
// true, so they need no tracking.
func (n *pnode) possible(st []colStats) (canTrue, canFalse bool) {
	switch n.op {
	case filter.Not:
		t, f := n.subs[0].possible(st)
		return f, t
	case filter.And:
		canTrue = true
		for i := range n.subs {
			t, f := n.subs[i].possible(st)
			canTrue, canFalse = canTrue && t, canFalse || f
		}
		return canTrue, canFalse
	case filter.Or:
		canFalse = true
		for i := range n.subs {
			t, f := n.subs[i].possible(st)
			canTrue, canFalse = canTrue || t, canFalse && f
		}
		return canTrue, canFalse
	}
	s := &st[n.col]
	switch {
	case s.allNull:
		return false, false
	case s.min == nil || s.max == nil:
		return true, true
	}
	return n.term.bounds(s.min, s.max)
}

// bounds returns the PLAIN-encoded bounds of a column chunk's non-null
// values, if its statistics give them in an order the filter uses.
func bounds(md *pqformat.FileMetaData, info *statInfo, st *pqformat.Statistics) (minb, maxb []byte, ok bool) {
	if info.leaf < len(md.ColumnOrders) {
		if _, ok := md.ColumnOrders[info.leaf].Value.(*pqformat.TypeDefinedOrder); !ok {
			return nil, nil, false // an order this reader does not know
		}
	}
	minb, maxb = st.MinValue, st.MaxValue
	if minb == nil && maxb == nil && info.signed {
		minb, maxb = st.Min, st.Max
	}
	if minb == nil && info.bytes && maxb != nil {
		minb = []byte{} // no byte string is less than the empty one
	}
	return minb, maxb, minb != nil && maxb != nil
}
