package parquet

import (
	"slices"
	"testing"
)

// TestColumnOrder checks where the reads of a row group's ranges start
// and which way they go: range 2m forward from the column at fraction
// bitreverse(2m) of the columns (0, 1/4, 1/8, ...), range 2m+1 backward
// from the column before, each visiting every column once.
func TestColumnOrder(t *testing.T) {
	for _, tc := range []struct {
		rows    int64
		parts   int
		columns int
		want    [][2]int // first column and step of each range
	}{
		{122880, 2, 5, [][2]int{{0, 1}, {4, -1}}},
		{122880, 3, 5, [][2]int{{0, 1}, {4, -1}, {1, 1}}},
		{122880, 4, 5, [][2]int{{0, 1}, {4, -1}, {1, 1}, {0, -1}}},
		{100, 4, 8, [][2]int{{0, 1}, {7, -1}, {2, 1}, {1, -1}}},
		{100, 4, 2, [][2]int{{0, 1}, {1, -1}, {0, 1}, {1, -1}}},
		{7, 7, 3, [][2]int{{0, 1}, {2, -1}, {0, 1}, {2, -1}, {0, 1}, {2, -1}, {1, 1}}},
		{1 << 62, 2, 5, [][2]int{{0, 1}, {4, -1}}},
		{10, 1, 1, [][2]int{{0, 1}}},
	} {
		var got [][2]int
		for i := range tc.parts {
			from := int64(float64(tc.rows) * float64(i) / float64(tc.parts))
			to := int64(float64(tc.rows) * float64(i+1) / float64(tc.parts))
			first, step := columnOrder(span{from: from, to: to}, tc.columns)
			got = append(got, [2]int{first, step})
			seen := make([]bool, tc.columns)
			for k := range tc.columns {
				seen[(first+step*k+tc.columns)%tc.columns] = true
			}
			if slices.Contains(seen, false) {
				t.Errorf("%d rows in %d parts, %d columns: range %d does not visit every column: %v", tc.rows, tc.parts, tc.columns, i, seen)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d rows in %d parts, %d columns: got %v, want %v", tc.rows, tc.parts, tc.columns, got, tc.want)
		}
	}
	// Ranges of MaxRows rows and a shorter last one.
	if first, step := columnOrder(span{from: 65536, to: 122880}, 5); first != 4 || step != -1 {
		t.Errorf("rows [65536, 122880) of 122880, 5 columns: got %d, %d, want 4, -1", first, step)
	}
	if first, step := columnOrder(span{from: 0, to: 10}, 0); first != 0 || step != 1 {
		t.Errorf("no columns: got %d, %d", first, step)
	}
}
