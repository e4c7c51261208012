package operators_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
)

// poolSerial is the reference: pools of pool×size rows sorted by length,
// cut into batches, the batches of pool k shuffled with its stream.
func poolSerial(rows int64, size, pool int, seed uint64, position int, last remainder) []flow.Item[operators.Rows[[]int32]] {
	type row struct {
		v  []int32
		id rowid.ID
	}
	var items []flow.Item[operators.Rows[[]int32]]
	for k, lo := 0, int64(0); lo < rows; k, lo = k+1, lo+int64(size*pool) {
		var rs []row
		for i := lo; i < min(lo+int64(size*pool), rows); i++ {
			rs = append(rs, row{tokens(i), sourceID(i)})
		}
		slices.SortStableFunc(rs, func(a, b row) int { return cmp.Compare(len(a.v), len(b.v)) })
		var batches []operators.Rows[[]int32]
		for b := 0; b < len(rs); b += size {
			e := min(b+size, len(rs))
			if e-b < size && last == dropRemainder {
				break
			}
			var r operators.Rows[[]int32]
			for _, x := range rs[b:e] {
				r.Values, r.IDs = append(r.Values, x.v), append(r.IDs, x.id)
			}
			batches = append(batches, r)
		}
		rng := pcg.Keyed(seed, 0, uint64(position), 6, uint64(k))
		for i := len(batches) - 1; i > 0; i-- {
			j := rng.Intn(i + 1)
			batches[i], batches[j] = batches[j], batches[i]
		}
		for _, r := range batches {
			items = append(items, flow.Item[operators.Rows[[]int32]]{Part: int64(len(items) / 16), ID: foldIDs("bucket-pool", r.IDs), Value: r})
		}
	}
	return items
}

func TestBucketPool(t *testing.T) {
	const rows = 2000
	for _, c := range []struct {
		size, pool int
		last       remainder
	}{{8, 4, keepRemainder}, {32, 10, dropRemainder}, {7, 1, keepRemainder}} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			want := poolSerial(rows, c.size, c.pool, 9, 1, c.last)
			if c.last == dropRemainder && len(want) != rows/c.size {
				t.Fatalf("reference: %d batches, want %d", len(want), rows/c.size)
			}
			shapeVariants(t, want, func(p int) *flow.Pipeline {
				return flow.From(tokenSource(rows, 64)).Parallel(p).
					Via(operators.BucketPool(c.size, c.pool, tokenLen, withRemainder[operators.BatchOption](c.last)...)).WithSeed(9)
			})
		})
	}
	// Ranks with equal rows get equal batches.
	var counts [3]int
	for rank := range 3 {
		counts[rank] = len(collect[operators.Rows[[]int32]](t, flow.From(operators.EvenRanks(tokenSource(rows, 64), nil)).
			Parallel(2).WithRank(rank, 3).
			Via(operators.BucketPool(16, 8, tokenLen, operators.DropRemainder()))))
	}
	if counts[0] != rows/3/16 || counts[1] != counts[0] || counts[2] != counts[0] {
		t.Errorf("batches per rank %v, want %d each", counts, rows/3/16)
	}
}
