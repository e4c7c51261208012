package dataset

import (
	"math"
	"slices"
	"testing"
)

func TestRowGroupFragmentsCoverEveryRow(t *testing.T) {
	for _, rows := range [][]int64{{10}, {0, 7, 1}, {100, 3, 64, 65}, {math.MaxInt64 / 2}} {
		for _, maxRows := range []int64{0, 1, 2, 3, 7, 64, 1000, math.MaxInt64 / 5} {
			if maxRows > 0 && rows[0]/maxRows > 1e6 {
				continue // too many parts to list
			}
			checkSplit(t, rows, maxRows, slices.Collect(rowGroupFragments(4, "f.parquet", rows, maxRows)))
		}
	}
}

// checkSplit checks that frags cover the row groups exactly once, in order,
// with parts of at most maxRows rows, of sizes differing by at most one.
func checkSplit(t *testing.T, rows []int64, maxRows int64, frags []Fragment) {
	t.Helper()
	next, first := 0, int64(0)
	for rg, n := range rows {
		covered, minPart, maxPart := int64(0), int64(math.MaxInt64), int64(0)
		for next < len(frags) && frags[next].RowGroup == rg {
			f := frags[next]
			if f.From != covered || f.To < f.From || f.FirstRow != first+f.From || f.File != 4 || f.Path != "f.parquet" {
				t.Fatalf("rows %v max %d: fragment %+v after %d rows", rows, maxRows, f, covered)
			}
			if maxRows > 0 && f.Rows() > maxRows {
				t.Errorf("rows %v max %d: fragment of %d rows", rows, maxRows, f.Rows())
			}
			minPart, maxPart = min(minPart, f.Rows()), max(maxPart, f.Rows())
			covered = f.To
			next++
		}
		if covered != n {
			t.Errorf("rows %v max %d: group %d covered to %d of %d", rows, maxRows, rg, covered, n)
		}
		if maxPart-minPart > 1 {
			t.Errorf("rows %v max %d: group %d parts from %d to %d rows", rows, maxRows, rg, minPart, maxPart)
		}
		first += n
	}
	if next != len(frags) {
		t.Errorf("rows %v max %d: %d extra fragments", rows, maxRows, len(frags)-next)
	}
}

func TestMaxRowsOnFiles(t *testing.T) {
	root := t.TempDir()
	writeParquet(t, root, "a.parquet", 10, 3, 7)
	writeParquet(t, root, "b.parquet", 4)
	ds := mustDiscover(t, root)
	got := collectAll(t, mustPlan(t, ds, Config{MaxRows: 3}).Fragments(ctx, Position{}))
	type r struct {
		path     string
		rg       int
		from, to int64
		firstRow int64
	}
	want := []r{
		{"a.parquet", 0, 0, 2, 0}, {"a.parquet", 0, 2, 5, 2}, {"a.parquet", 0, 5, 7, 5}, {"a.parquet", 0, 7, 10, 7},
		{"a.parquet", 1, 0, 3, 10},
		{"a.parquet", 2, 0, 2, 13}, {"a.parquet", 2, 2, 4, 15}, {"a.parquet", 2, 4, 7, 17},
		{"b.parquet", 0, 0, 2, 0}, {"b.parquet", 0, 2, 4, 2},
	}
	if len(got) != len(want) {
		t.Fatalf("%d fragments, want %d: %v", len(got), len(want), got)
	}
	for i, f := range got {
		if (r{f.Path, f.RowGroup, f.From, f.To, f.FirstRow}) != want[i] || f.Index != int64(i) {
			t.Errorf("fragment %d: %+v, want %+v", i, f, want[i])
		}
	}
	// Shuffled, the same parts cover the same rows.
	shuffled := collectAll(t, mustPlan(t, ds, Config{MaxRows: 3, Window: -1, Seed: 2}).Fragments(ctx, Position{}))
	covered := map[string]int64{}
	for _, f := range shuffled {
		covered[f.Path] += f.Rows()
	}
	if covered["a.parquet"] != 20 || covered["b.parquet"] != 4 || len(shuffled) != len(want) {
		t.Errorf("shuffled parts cover %v in %d fragments", covered, len(shuffled))
	}
}
