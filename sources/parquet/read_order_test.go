package parquet

import (
	"slices"
	"testing"
)

// TestFirstColumn checks where the reads of a row group's ranges start:
// the range from row 0 at the first column, the others spread over the
// columns in the order of their rows, each within the columns.
func TestFirstColumn(t *testing.T) {
	for _, tc := range []struct {
		rows    int64
		parts   int
		columns int
		want    []int
	}{
		{122880, 2, 5, []int{0, 2}},
		{122880, 3, 5, []int{0, 1, 3}},
		{100, 4, 8, []int{0, 2, 4, 6}},
		{100, 4, 2, []int{0, 0, 1, 1}},
		{7, 7, 3, []int{0, 0, 0, 1, 1, 2, 2}},
		{1 << 62, 2, 5, []int{0, 2}},
		{10, 1, 0, []int{0}},
	} {
		var got []int
		for i := range tc.parts {
			from := int64(float64(tc.rows) * float64(i) / float64(tc.parts))
			got = append(got, firstColumn(span{from: from, to: tc.rows}, tc.rows, tc.columns))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d rows in %d parts, %d columns: got %v, want %v", tc.rows, tc.parts, tc.columns, got, tc.want)
		}
	}
}
