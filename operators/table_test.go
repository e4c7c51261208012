package operators_test

import (
	"fmt"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
)

// tableSerial is the reference: the filtered rows of each epoch grouped by
// source partition, tables of min..max partitions up to target rows, each
// shuffled with its stream and cut into batches.
func tableSerial(rows, part int64, epochs int64, seed uint64, position, minP, maxP, target, size int, last remainder) []flow.Item[operators.Rows[int64]] {
	var items []flow.Item[operators.Rows[int64]]
	for e := range epochs {
		var vals []int64
		var ids []rowid.ID
		parts, table, k := 0, 0, 0
		end := func() {
			if len(vals) > 0 {
				rng := pcg.Keyed(seed, uint64(e), uint64(position), 5, uint64(table))
				table++
				for i := len(vals) - 1; i > 0; i-- {
					j := rng.Intn(i + 1)
					vals[i], vals[j], ids[i], ids[j] = vals[j], vals[i], ids[j], ids[i]
				}
				for lo := 0; lo < len(vals); lo += size {
					hi := min(lo+size, len(vals))
					r := operators.Rows[int64]{Values: vals[lo:hi:hi], IDs: ids[lo:hi:hi]}
					if short := size - (hi - lo); short > 0 {
						switch last {
						case dropRemainder:
							continue
						case padRemainder:
							r.Padding = short
							r.Values = append(r.Values, make([]int64, short)...)
							r.IDs = append(r.IDs, make([]rowid.ID, short)...)
						}
					}
					items = append(items, flow.Item[operators.Rows[int64]]{Part: epoch.Part(e, int64(k/16)),
						ID: foldIDs("table-bucket", ids[lo:hi]), Value: r})
					k++
				}
			}
			vals, ids, parts = nil, nil, 0
		}
		for lo := int64(0); lo < rows; lo += part {
			for i := lo; i < min(lo+part, rows); i++ {
				if keep(i) {
					vals, ids = append(vals, i), append(ids, sourceID(i))
				}
			}
			parts++
			if parts >= maxP || parts >= minP && len(vals) >= target {
				end()
			}
		}
		end()
	}
	return items
}

func TestTableBucket(t *testing.T) {
	const rows, part = 3000, 64
	for _, c := range []struct {
		min, max, target, size int
		last                   remainder
	}{
		{1, 1, 0, 8, keepRemainder}, {2, 5, 100, 16, keepRemainder}, {3, 3, 1000, 7, keepRemainder},
		{2, 5, 100, 16, dropRemainder}, {2, 5, 100, 16, padRemainder},
	} {
		t.Run(fmt.Sprintf("tables %d-%d target %d size %d %v", c.min, c.max, c.target, c.size, c.last), func(t *testing.T) {
			want := tableSerial(rows, part, 2, 42, 2, c.min, c.max, c.target, c.size, c.last)
			short := 0
			for _, it := range want {
				if it.Value.Len()-it.Value.Padding < c.size {
					short++
				}
			}
			if (c.last == keepRemainder || c.last == padRemainder) != (short > 0) {
				t.Fatalf("%d short batches in the reference under %v", short, c.last)
			}
			shapeVariants(t, want, func(n int) *flow.Pipeline {
				return flow.From(source(rows, part, 16)).Epochs(2).
					Via(operators.Filter(keep)).Parallel(n).
					Via(operators.TableBucket[int64](c.size, withRemainder(c.last, operators.Tables(c.min, c.max, c.target))...)).
					WithSeed(42)
			})
		})
	}
	// Another seed gives other batches.
	a := collect[operators.Rows[int64]](t, flow.From(source(rows, part, 16)).Via(operators.TableBucket[int64](8)).WithSeed(1))
	b := collect[operators.Rows[int64]](t, flow.From(source(rows, part, 16)).Via(operators.TableBucket[int64](8)).WithSeed(2))
	if len(a) != len(b) || a[0].ID == b[0].ID {
		t.Errorf("seeds 1 and 2: %d and %d batches, first IDs %v and %v", len(a), len(b), a[0].ID, b[0].ID)
	}
	for _, err := range flow.Items[operators.Rows[int64]](t.Context(), flow.From(source(10, 5, 5)).Via(operators.TableBucket[int64](2, operators.Tables(3, 2, 0)))) {
		if err == nil {
			t.Fatal("Tables(3, 2, 0): the run gave an item")
		}
	}
}
