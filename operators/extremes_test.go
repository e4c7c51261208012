package operators_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// batchesOf runs stage over the values 0 … len(lengths)-1 at parallelism
// 1 and 4 (the stage after a parallel map), where value i has length
// lengths[i], and returns each batch's values with padding shown as -1.
// Both parallelisms must agree.
func batchesOf(t *testing.T, lengths []int, stage func(length func(int) int) flow.Stage) ([][]int, error) {
	t.Helper()
	vals := make([]int, len(lengths))
	for i := range vals {
		vals[i] = i
	}
	length := func(v int) int { return lengths[v] }
	var first [][]int
	var firstErr error
	for i, p := range []int{1, 4} {
		var got [][]int
		var err error
		pipe := flow.From(sources.Slice(vals, sources.PartitionItems(2))).
			Via(operators.Map(func(v int) (int, error) { return v, nil })).Parallel(p).
			Via(stage(length))
		for r, e := range flow.Values[operators.Rows[int]](t.Context(), pipe) {
			if err = e; err != nil {
				break
			}
			b := slices.Clone(r.Values)
			for k := len(b) - r.Padding; k < len(b); k++ {
				b[k] = -1
			}
			got = append(got, b)
		}
		if i == 0 {
			first, firstErr = got, err
		} else if !slices.EqualFunc(got, first, slices.Equal) || (err == nil) != (firstErr == nil) {
			t.Errorf("parallelism %d: %v, %v; parallelism 1: %v, %v", p, got, err, first, firstErr)
		}
	}
	return first, firstErr
}

// Sizes and lengths at the ends of int's range: a size asks for a batch,
// not for its memory up front, and lengths near math.MaxInt neither wrap
// nor land in the wrong bucket.
func TestShapeExtremes(t *testing.T) {
	for _, c := range []struct {
		name    string
		lengths []int
		stage   func(length func(int) int) flow.Stage
		want    [][]int
	}{
		{"Batch(MaxInt) keeps one short batch", []int{1, 1, 1, 1}, func(func(int) int) flow.Stage {
			return operators.Batch[int](math.MaxInt)
		}, [][]int{{0, 1, 2, 3}}},
		{"Batch(MaxInt) drops it", []int{1, 1, 1, 1}, func(func(int) int) flow.Stage {
			return operators.Batch[int](math.MaxInt, operators.DropRemainder())
		}, nil},
		{"Batch(1<<40) does not ask for its memory", []int{1, 1, 1}, func(func(int) int) flow.Stage {
			return operators.Batch[int](1 << 40)
		}, [][]int{{0, 1, 2}}},
		{"a row of length MaxInt goes to the last bucket", []int{math.MaxInt, 1, 2}, func(l func(int) int) flow.Stage {
			return operators.BucketByLength(l, operators.Buckets([]int{10}, []int{2, 2}))
		}, [][]int{{1, 2}, {0}}},
		{"a row at a bound goes to the next bucket", []int{10, 9, 9, 10}, func(l func(int) int) flow.Stage {
			return operators.BucketByLength(l, operators.Buckets([]int{10}, []int{2, 2}))
		}, [][]int{{1, 2}, {0, 3}}},
		{"a token budget does not wrap on a huge row", []int{1, 1 << 62, 1, 1, 1}, func(l func(int) int) flow.Stage {
			return operators.BucketByLength(l, operators.TokenBudget(100))
		}, [][]int{{0}, {1}, {2, 3, 4}}},
		{"padding stays within a token budget", []int{5, 5, 5}, func(l func(int) int) flow.Stage {
			return operators.BucketByLength(l, operators.TokenBudget(10), operators.Buckets(nil, []int{5}),
				operators.PadRemainder())
		}, [][]int{{0, 1}, {2, -1}}},
		{"BucketPool(1<<40, 1) does not ask for its memory", []int{3, 1, 2}, func(l func(int) int) flow.Stage {
			return operators.BucketPool(1<<40, 1, l)
		}, [][]int{{1, 2, 0}}},
		{"BucketPool sorts lengths near MaxInt", []int{math.MaxInt, 0, 3, math.MaxInt - 1}, func(l func(int) int) flow.Stage {
			return operators.BucketPool(4, 1, l)
		}, [][]int{{1, 2, 3, 0}}},
	} {
		got, err := batchesOf(t, c.lengths, c.stage)
		if err != nil || !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// Arguments whose product or queue no int or memory can hold fail the
// build, and a negative length fails the run at its row.
func TestShapeRefusesExtremes(t *testing.T) {
	for _, c := range []struct {
		name    string
		lengths []int
		stage   func(length func(int) int) flow.Stage
		want    string
		row     bool
	}{
		{"BucketPool(MaxInt, 2)", []int{1}, func(l func(int) int) flow.Stage {
			return operators.BucketPool(math.MaxInt, 2, l)
		}, "more than an int can count", false},
		{"BucketPool(1<<32, 1<<32)", []int{1}, func(l func(int) int) flow.Stage {
			return operators.BucketPool(1<<32, 1<<32, l)
		}, "more than an int can count", false},
		{"a negative length in BucketByLength", []int{1, 2, -5, 1}, func(l func(int) int) flow.Stage {
			return operators.BucketByLength(l, operators.TokenBudget(100))
		}, "gave -5, less than 0", true},
		{"a negative length in BucketPool", []int{1, 2, -5, 1}, func(l func(int) int) flow.Stage {
			return operators.BucketPool(2, 2, l)
		}, "gave -5, less than 0", true},
	} {
		_, err := batchesOf(t, c.lengths, c.stage)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			continue
		}
		var se *flow.StageError
		if c.row && (!errors.As(err, &se) || !se.HasID || se.Part != 1) {
			t.Errorf("%s: error %v does not name the row's partition (1)", c.name, err)
		}
	}
	src := flow.From(sources.Slice([]int{1, 2}))
	for _, n := range []int{0, 1<<20 + 1, math.MaxInt} {
		var count int64
		err := src.Via(operators.Prefetch[int](n)).To(sinks.Count[int](&count)).Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), "at most 1048576") {
			t.Errorf("Prefetch(%d): error %v", n, err)
		}
	}
}
