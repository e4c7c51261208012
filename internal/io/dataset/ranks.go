package dataset

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/rowflow/rowflow/internal/run/shares"
)

// rankEpoch plans epoch e for one rank of several: it orders all of the
// epoch's fragments as one rank would, divides them among the ranks (see
// "Ranks" in the package documentation), and yields this rank's pieces
// from piece index skip on, in epoch order. It returns the number of
// pieces of the epoch on all ranks, and the error it yielded or errStop.
func (p *Plan) rankEpoch(ctx context.Context, e, skip int64, yield func(Fragment, error) bool) (int64, error) {
	var all []Fragment
	_, err := p.order(ctx, e, 0, func(f Fragment, err error) bool {
		if err == nil {
			all = append(all, f)
		}
		return err == nil
	})
	if err != nil && err != errStop {
		return 0, err // order yielded it
	}
	pieces := divide(all, p.cfg.world(), p.cfg.RowRanges && !p.cfg.WholeFiles)
	if int64(len(pieces)) > EpochStride {
		err := fmt.Errorf("dataset: epoch %d has more than %d fragments", e, int64(EpochStride))
		yield(Fragment{}, err)
		return 0, err
	}
	for i, pc := range pieces {
		if pc.rank != p.cfg.Rank || int64(i) < skip {
			continue
		}
		if err := ctx.Err(); err != nil {
			yield(Fragment{}, err)
			return 0, err
		}
		f := pc.f
		f.Index = int64(i)
		f.Part = f.Position().Batch()
		if !yield(f, nil) {
			return int64(len(pieces)), errStop
		}
	}
	return int64(len(pieces)), nil
}

// piece is a fragment, or a range of its rows, and the rank that reads it.
type piece struct {
	f    Fragment
	rank int
}

// divide returns the pieces of the fragments, in epoch order, each with
// its rank.
//
// With rowRanges, fragments may be cut at any row: the epoch's rows, in
// order, are cut into world contiguous runs whose sizes differ by at most
// one, rank r taking rows [r*n/world, (r+1)*n/world) of the n; a fragment
// that a cut falls in becomes two pieces. Otherwise each fragment goes
// whole to one rank: largest first (ties: earlier first) to the rank
// with the fewest rows so far (ties: the lowest rank), so that ranks get
// even totals, not even counts.
func divide(frags []Fragment, world int, rowRanges bool) []piece {
	if !rowRanges {
		return wholeFragments(frags, world)
	}
	var total int64
	for _, f := range frags {
		total += f.Rows()
	}
	var out []piece
	rank, at := 0, int64(0) // at: rows of the epoch before the fragment
	for _, f := range frags {
		if f.Rows() == 0 {
			out = append(out, piece{f, rank})
			continue
		}
		from := f.From
		for from < f.To {
			for rank < world-1 && shares.Point(int64(rank+1), total, int64(world)) <= at+(from-f.From) {
				rank++
			}
			end := shares.Point(int64(rank+1), total, int64(world)) - at + f.From
			to := min(f.To, end)
			if rank == world-1 {
				to = f.To
			}
			pc := f
			pc.From, pc.To, pc.FirstRow = from, to, f.FirstRow+(from-f.From)
			out = append(out, piece{pc, rank})
			from = to
		}
		at += f.Rows()
	}
	return out
}

// wholeFragments gives each fragment whole to the rank with the fewest
// rows so far, largest fragments first.
func wholeFragments(frags []Fragment, world int) []piece {
	order := make([]int, len(frags))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(frags[b].Rows(), frags[a].Rows()) })
	load := make([]int64, world)
	out := make([]piece, len(frags))
	for _, i := range order {
		r := 0
		for k := range load {
			if load[k] < load[r] {
				r = k
			}
		}
		load[r] += frags[i].Rows()
		out[i] = piece{frags[i], r}
	}
	return out
}
