package flow

import (
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// IDs holds the row IDs of a chunk's values, one per value, in order.
//
// An IDs is either an explicit list or a compact run: the ordinals
// first, first+1, … of a source, each combined with the source's base ID
// (so that a row's ID depends only on its input and its position in it,
// never on the shuffle, sharding or parallelism), possibly thinned to a
// selection of offsets by filters.
// A run costs nothing per row until an ID is asked for, so sources and
// filters do not spend time and memory bandwidth on IDs that no stage
// reads. Whatever the form, [IDs.At] gives the same IDs.
//
// The zero value holds no IDs.
type IDs struct {
	list  []rowid.ID
	sel   []uint32 // offsets into the run; nil for a dense run
	comb  rowid.Combiner
	first uint64
	n     int
	run   bool
}

// ListIDs returns IDs backed by list. The IDs keep list; callers must not
// modify it afterwards.
func ListIDs(list []rowid.ID) IDs {
	return IDs{list: list, n: len(list)}
}

// OrdinalIDs returns the n IDs rowid.Ordinal(first+k).Combine(base) for
// k in [0, n): the IDs of rows first … first+n-1 of the input that base
// identifies.
func OrdinalIDs(base rowid.ID, first uint64, n int) IDs {
	return IDs{comb: rowid.NewCombiner(base), first: first, n: n, run: true}
}

// Len returns the number of IDs.
func (s IDs) Len() int { return s.n }

// At returns the k-th ID. It panics if k is out of range.
func (s IDs) At(k int) rowid.ID {
	if !s.run {
		return s.list[k]
	}
	return s.runAt(k)
}

// runAt is At for IDs of a run, apart so that At is small enough to be
// inlined: a call would copy the whole IDs for every row.
func (s *IDs) runAt(k int) rowid.ID {
	if k < 0 || k >= s.n {
		panic("flow: IDs.At index out of range")
	}
	off := uint64(k)
	if s.sel != nil {
		off = uint64(s.sel[k])
	}
	return s.comb.Combine(rowid.Ordinal(s.first + off))
}

// AppendTo appends all IDs to dst and returns the extended slice.
func (s IDs) AppendTo(dst []rowid.ID) []rowid.ID {
	switch {
	case !s.run:
		return append(dst, s.list...)
	case s.sel == nil:
		for k := range uint64(s.n) {
			dst = append(dst, s.comb.Combine(rowid.Ordinal(s.first+k)))
		}
	default:
		for _, off := range s.sel[:s.n] {
			dst = append(dst, s.comb.Combine(rowid.Ordinal(s.first+uint64(off))))
		}
	}
	return dst
}

// Slice returns the IDs [i, j), sharing storage with s.
func (s IDs) Slice(i, j int) IDs {
	if i < 0 || j < i || j > s.n {
		panic("flow: IDs.Slice bounds out of range")
	}
	if !s.run {
		return ListIDs(s.list[i:j])
	}
	t := s
	t.n = j - i
	if s.sel != nil {
		t.sel = s.sel[i:j]
	} else {
		t.first += uint64(i)
	}
	return t
}

// Keep keeps only the IDs at the positions in kept, which must be
// ascending and in range. It reuses the storage of s and takes ownership
// of kept (it is recycled, as Chunk.Release recycles a chunk's buffers):
// the caller must not use it afterwards.
func (s *IDs) Keep(kept []uint32) {
	s.n = len(kept)
	switch {
	case !s.run:
		for j, k := range kept {
			s.list[j] = s.list[k]
		}
		s.list = s.list[:len(kept)]
		slicepool.Recycle(kept)
	case s.sel == nil:
		s.sel = kept
	default:
		for j, k := range kept {
			s.sel[j] = s.sel[k]
		}
		s.sel = s.sel[:len(kept)]
		slicepool.Recycle(kept)
	}
}
