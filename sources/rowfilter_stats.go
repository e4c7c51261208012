package sources

import (
	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/pqcol"
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
		s.signed = !unsigned(leaf)
	case parquet.Float, parquet.Double:
		s.signed = true
	}
	return s
}

// prunedRowGroups evaluates the filter on the statistics of every row
// group: true for those where it cannot be true.
func (p *predicate) prunedRowGroups(md *pqformat.FileMetaData, leaves int) []bool {
	prune := make([]bool, len(md.RowGroups))
	for rg := range md.RowGroups {
		g := &md.RowGroups[rg]
		if len(g.Columns) != leaves {
			continue // a corrupt footer: reading the row group reports it
		}
		canTrue, _ := p.root.possible(md, g)
		prune[rg] = !canTrue
	}
	return prune
}

// possible says whether the node can be true, and whether it can be
// false, on some row of row group g, going by its statistics. Unknown
// (null) outcomes are neither; they stay unknown through Not, and never
// make And or Or true, so they need no tracking.
func (n *pnode) possible(md *pqformat.FileMetaData, g *pqformat.RowGroup) (canTrue, canFalse bool) {
	switch n.op {
	case opNot:
		t, f := n.subs[0].possible(md, g)
		return f, t
	case opAnd:
		canTrue = true
		for i := range n.subs {
			t, f := n.subs[i].possible(md, g)
			canTrue, canFalse = canTrue && t, canFalse || f
		}
		return canTrue, canFalse
	case opOr:
		canFalse = true
		for i := range n.subs {
			t, f := n.subs[i].possible(md, g)
			canTrue, canFalse = canTrue || t, canFalse && f
		}
		return canTrue, canFalse
	}
	cm := &g.Columns[n.stat.leaf].MetaData
	st := &cm.Statistics
	if cm.NumValues > 0 && st.NullCount == cm.NumValues {
		return false, false // every value is null
	}
	minb, maxb, ok := bounds(md, &n.stat, st)
	if !ok {
		return true, true
	}
	return n.term.bounds(minb, maxb)
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
