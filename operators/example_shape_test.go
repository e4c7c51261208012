package operators_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// Batch groups rows into training batches; each batch keeps its members'
// values and row IDs, and the last one is padded here.
func ExampleBatch() {
	p := flow.From(sources.Slice([]string{"a", "b", "c", "d", "e"}, sources.PartitionItems(2))).
		Via(operators.Batch[string](2, operators.PadRemainder()))
	for it, err := range flow.Items[operators.Rows[string]](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q padding %d, first member %s\n", it.Value.Values, it.Value.Padding, it.Value.IDs[0])
	}
	// Output:
	// ["a" "b"] padding 0, first member cd222931b549812e6f496e2ccd73e91a
	// ["c" "d"] padding 0, first member cd2229302549812e6f496e2c7d73e91a
	// ["e" ""] padding 1, first member cd222934d549812e6f496e2d6d73e91a
}

// Pad makes a batch of token lists rectangular, with lengths and a mask.
func ExamplePad() {
	rows := [][]int32{{5, 6, 7}, {8}, {9, 10}}
	p := flow.From(sources.Slice(rows)).
		Via(operators.Batch[[]int32](3)).
		Via(operators.Pad(int32(0), operators.PadMultiple(4)))
	for b, err := range flow.Values[operators.Padded[int32]](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Shape, b.Lengths)
		for r := range b.Shape[0] {
			fmt.Println(b.Data[r*b.Shape[1]:(r+1)*b.Shape[1]], b.Mask[r*b.Shape[1]:(r+1)*b.Shape[1]])
		}
	}
	// Output:
	// [3 4] [3 1 2]
	// [5 6 7 0] [true true true false]
	// [8 0 0 0] [true false false false]
	// [9 10 0 0] [true true false false]
}

// BucketByLength batches rows of similar length: here short rows (under 3
// tokens) in batches of 2, long ones in batches of 3; the partly filled
// buckets come out at the end, oldest first.
func ExampleBucketByLength() {
	rows := [][]int32{{1}, {1, 2, 3}, {1, 2}, {1, 2, 3, 4}, {1}, {1, 2, 3}, {1, 2, 3, 4, 5}}
	p := flow.From(sources.Slice(rows)).
		Via(operators.BucketByLength(func(t []int32) int { return len(t) },
			operators.Buckets([]int{3}, []int{2, 3})))
	for b, err := range flow.Values[operators.Rows[[]int32]](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(b.Values)
	}
	// Output:
	// [[1] [1 2]]
	// [[1 2 3] [1 2 3 4] [1 2 3]]
	// [[1]]
	// [[1 2 3 4 5]]
}

// Pack fills rows of 6 tokens with whole sequences, looking 3 sequences
// ahead; segments and positions say where each sequence lies.
func ExamplePack() {
	seqs := [][]int32{{1, 1, 1, 1}, {2, 2, 2}, {3, 3}, {4}, {5, 5, 5, 5, 5}}
	p := flow.From(sources.Slice(seqs)).Via(operators.Pack(6, int32(0), operators.Window(3)))
	for r, err := range flow.Values[operators.Packed[int32]](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(r.Tokens, r.Segments, r.Positions)
	}
	// Output:
	// [1 1 1 1 3 3] [1 1 1 1 2 2] [0 1 2 3 0 1]
	// [2 2 2 4 0 0] [1 1 1 2 0 0] [0 1 2 0 0 0]
	// [5 5 5 5 5 0] [1 1 1 1 1 0] [0 1 2 3 4 0]
}

// ReduceRuns folds runs of equal keys into one value of another type.
func ExampleReduceRuns() {
	type sale struct {
		Day    string
		Amount int
	}
	sales := []sale{{"mon", 3}, {"mon", 4}, {"tue", 1}, {"wed", 2}, {"wed", 5}}
	p := flow.From(sources.Slice(sales)).
		Via(operators.ReduceRuns(func(s sale) string { return s.Day },
			func(total int, s sale) (int, error) { return total + s.Amount, nil }))
	for v, err := range flow.Values[int](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output:
	// 7 1 7
}

// MapChunks and FilterChunks call the user function once per chunk.
func ExampleMapChunks() {
	p := flow.From(sources.Generate(10, func(i int64) (int64, error) { return i, nil })).
		Via(operators.MapChunks(func(in, out []int64) error {
			for k, v := range in {
				out[k] = v * v
			}
			return nil
		})).Parallel(2).
		Via(operators.FilterChunks(func(vals []int64, kept []uint32) ([]uint32, error) {
			for k, v := range vals {
				if v%2 == 1 {
					kept = append(kept, uint32(k))
				}
			}
			return kept, nil
		})).Parallel(2)
	for v, err := range flow.Values[int64](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output:
	// 1 9 25 49 81
}

// FilterMapChunks maps and filters a chunk in one pass: here it squares
// the values and keeps the odd squares, writing them over the chunk's
// front.
func ExampleFilterMapChunks() {
	p := flow.From(sources.Generate(10, func(i int64) (int64, error) { return i, nil })).
		Via(operators.FilterMapChunks(func(in, out []int64, kept []uint32) ([]uint32, error) {
			for k, v := range in {
				if v*v%2 == 1 {
					out[len(kept)] = v * v
					kept = append(kept, uint32(k))
				}
			}
			return kept, nil
		})).Parallel(2)
	for v, err := range flow.Values[int64](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output:
	// 1 9 25 49 81
}

// EvenRanks gives each of 3 ranks the same number of rows of 10: the
// account says which row no rank gets.
func ExampleEvenRanks() {
	for rank := range 3 {
		var acct operators.EvenAccount
		src := operators.EvenRanks(sources.Generate(10, func(i int64) (int64, error) { return i, nil }), &acct)
		var got []int64
		for v, err := range flow.Values[int64](context.Background(), flow.From(src).WithRank(rank, 3)) {
			if err != nil {
				fmt.Println(err)
				return
			}
			got = append(got, v)
		}
		fmt.Printf("rank %d %v dropped positions [%d, %d)\n", rank, got, acct.Dropped[0], acct.Dropped[1])
	}
	// Output:
	// rank 0 [0 3 6] dropped positions [9, 10)
	// rank 1 [1 4 7] dropped positions [9, 10)
	// rank 2 [2 5 8] dropped positions [9, 10)
}

// Cache runs a pipeline once and replays it: here the second epoch does
// not call the map.
func ExampleCache() {
	calls := 0
	slow := flow.From(sources.Generate(4, func(i int64) (int64, error) { return i, nil })).
		Via(operators.Map(func(v int64) (int64, error) { calls++; return 10 * v, nil }))
	dir, _ := os.MkdirTemp("", "cache-example-")
	defer os.RemoveAll(dir)
	cache := operators.Cache[int64](slow, operators.OnDisk(filepath.Join(dir, "slow.cache")))
	var got []int64
	for v, err := range flow.Values[int64](context.Background(), flow.From(cache).Epochs(2)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		got = append(got, v)
	}
	fmt.Println(got, "map calls:", calls)
	// Output:
	// [0 10 20 30 0 10 20 30] map calls: 4
}
