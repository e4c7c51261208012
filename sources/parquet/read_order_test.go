package parquet

import (
	"slices"
	"testing"
)

// TestFirstColumn checks where the reads of a row group's ranges start:
// the range from row 0 at the first column, the others at the fractions
// 1/2, 1/4, 3/4, 1/8, ... of the columns, so that consecutive ranges start
// far apart.
func TestFirstColumn(t *testing.T) {
	for _, tc := range []struct {
		rows    int64
		parts   int
		columns int
		want    []int
	}{
		{122880, 2, 5, []int{0, 2}},
		{122880, 3, 5, []int{0, 2, 1}},
		{122880, 4, 5, []int{0, 2, 1, 3}},
		{100, 4, 8, []int{0, 4, 2, 6}},
		{100, 4, 2, []int{0, 1, 0, 1}},
		{7, 7, 3, []int{0, 1, 0, 2, 0, 1, 1}},
		{1 << 62, 2, 5, []int{0, 2}},
		{10, 1, 0, []int{0}},
	} {
		var got []int
		for i := range tc.parts {
			from := int64(float64(tc.rows) * float64(i) / float64(tc.parts))
			to := int64(float64(tc.rows) * float64(i+1) / float64(tc.parts))
			got = append(got, firstColumn(span{from: from, to: to}, tc.columns))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d rows in %d parts, %d columns: got %v, want %v", tc.rows, tc.parts, tc.columns, got, tc.want)
		}
	}
	// Ranges of MaxRows rows and a shorter last one.
	if got := firstColumn(span{from: 65536, to: 122880}, 5); got != 2 {
		t.Errorf("rows [65536, 122880) of 122880, 5 columns: got %d, want 2", got)
	}
}
