package operators_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
)

func TestMapFilterChunks(t *testing.T) {
	const rows, part = 3000, 64
	var want []flow.Item[string]
	for i := range int64(rows) {
		if v := 3 * i; keep(v) {
			want = append(want, flow.Item[string]{Part: i / part, ID: sourceID(i), Value: fmt.Sprint(v)})
		}
	}
	triple := operators.MapChunks(func(in, out []int64) error {
		for k, v := range in {
			out[k] = 3 * v
		}
		return nil
	})
	filter := operators.FilterChunks(func(vals []int64, kept []uint32) ([]uint32, error) {
		for k, v := range vals {
			if keep(v) {
				kept = append(kept, uint32(k))
			}
		}
		return kept, nil
	})
	format := operators.MapChunks(func(in []int64, out []string) error {
		for k, v := range in {
			out[k] = fmt.Sprint(v)
		}
		return nil
	})
	variants(t, want, func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 50)).Parallel(n).
			Via(triple).Parallel(n).Via(filter).Parallel(n).Via(format).Parallel(n)
	})
	// The chunk forms give what the per-value forms give.
	perValue := collect[string](t, flow.From(source(rows, part, 50)).
		Via(operators.Map(func(v int64) (int64, error) { return 3 * v, nil })).
		Via(operators.Filter(keep)).
		Via(operators.Map(func(v int64) (string, error) { return fmt.Sprint(v), nil })).Parallel(3))
	equalItems(t, "per-value stages", perValue, want)
}

func TestFilterMapChunks(t *testing.T) {
	const rows, part = 3000, 64
	var want []flow.Item[string]
	var wantInts []flow.Item[int64]
	for i := range int64(rows) {
		if v := 3 * i; keep(v) {
			want = append(want, flow.Item[string]{Part: i / part, ID: sourceID(i), Value: fmt.Sprint(v)})
			wantInts = append(wantInts, flow.Item[int64]{Part: i / part, ID: sourceID(i), Value: v})
		}
	}
	// To the same type: f compacts the chunk in place.
	inPlace := operators.FilterMapChunks(func(in, out []int64, kept []uint32) ([]uint32, error) {
		for k, v := range in {
			if v := 3 * v; keep(v) {
				out[len(kept)] = v
				kept = append(kept, uint32(k))
			}
		}
		return kept, nil
	})
	variants(t, wantInts, func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 50)).Parallel(n).Via(inPlace).Parallel(n)
	})
	// To another type, into a buffer of its own.
	format := operators.FilterMapChunks(func(in []int64, out []string, kept []uint32) ([]uint32, error) {
		for k, v := range in {
			if v := 3 * v; keep(v) {
				out[len(kept)] = fmt.Sprint(v)
				kept = append(kept, uint32(k))
			}
		}
		return kept, nil
	})
	variants(t, want, func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 50)).Via(format).Parallel(n)
	})
	// After a filter, chunks come with a selection of their run of IDs,
	// and some come empty; after a flat-map, with a list of IDs.
	odd := func(v int64) bool { return v%2 == 1 }
	var afterFilter, afterFlatMap []flow.Item[int64]
	for _, it := range wantInts {
		i := it.Value / 3
		if odd(i) {
			afterFilter = append(afterFilter, it)
		}
		afterFlatMap = append(afterFlatMap, flow.Item[int64]{Part: it.Part, ID: forkID(it.ID, 0), Value: it.Value})
	}
	variants(t, afterFilter, func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 50)).Via(operators.Filter(odd)).Parallel(n).Via(inPlace).Parallel(n)
	})
	variants(t, afterFlatMap, func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 50)).
			Via(operators.FlatMap(func(v int64) ([]int64, error) { return []int64{v}, nil })).Parallel(n).
			Via(inPlace).Parallel(n)
	})
}

// A function that returns positions in a slice of its own, not the one
// it was given, keeps that slice: the stage copies the positions. Were
// the slice recycled, the filter after it, which writes positions into
// recycled buffers, would overwrite it.
func TestChunkFiltersCopyForeignPositions(t *testing.T) {
	const rows, part, chunk = 3000, 64, 50
	var want []flow.Item[int64]
	for i := range int64(rows) {
		if pos := i % part % chunk; pos%2 == 0 {
			want = append(want, flow.Item[int64]{Part: i / part, ID: sourceID(i), Value: i})
		}
	}
	mine := make([]uint32, chunk)
	for k := range mine {
		mine[k] = uint32(k)
	}
	all := func(n int) []uint32 { return mine[:n] }
	evenPositions := operators.FilterChunks(func(vals []int64, kept []uint32) ([]uint32, error) {
		for k := range vals {
			if k%2 == 0 {
				kept = append(kept, uint32(k))
			}
		}
		return kept, nil
	})
	stages := map[string]flow.Stage{
		"filter-chunks": operators.FilterChunks(func(vals []int64, kept []uint32) ([]uint32, error) {
			return all(len(vals)), nil
		}),
		"filter-map-chunks": operators.FilterMapChunks(func(in, out []int64, kept []uint32) ([]uint32, error) {
			return all(len(in)), nil
		}),
	}
	for name, stage := range stages {
		for _, n := range parallelisms {
			got := collect[int64](t, flow.From(source(rows, part, chunk)).Parallel(n).Via(stage).Parallel(n).
				Via(evenPositions).Parallel(n))
			equalItems(t, fmt.Sprintf("%s, parallelism %d", name, n), got, want)
			for k, v := range mine {
				if v != uint32(k) {
					t.Fatalf("%s, parallelism %d: the function's own slice was written: position %d holds %d", name, n, k, v)
				}
			}
		}
	}
}

// TestChunkFiltersRefuseBadPositions checks that kept positions out of
// order, repeated, out of range or too many fail the run with a stage
// error naming the batch, for both chunk-level filters.
func TestChunkFiltersRefuseBadPositions(t *testing.T) {
	bad := map[string]func(kept []uint32, n int) []uint32{
		"out of order": func(kept []uint32, n int) []uint32 { return append(kept, 2, 1) },
		"repeated":     func(kept []uint32, n int) []uint32 { return append(kept, 0, 0) },
		"out of range": func(kept []uint32, n int) []uint32 { return append(kept, 0, uint32(n)) },
		"out of order in a run": func(kept []uint32, n int) []uint32 {
			return append(kept, 0, 1, 2, 3, 4, 6, 5, 7)
		},
		"too many": func(kept []uint32, n int) []uint32 {
			for k := range n + 1 {
				kept = append(kept, uint32(k))
			}
			return kept
		},
	}
	for what, positions := range bad {
		// Only the chunk that holds row 555 (batch 5) gets bad positions.
		pick := func(vals []int64, kept []uint32) []uint32 {
			if slices.Contains(vals, 555) {
				return positions(kept, len(vals))
			}
			for k := range vals {
				kept = append(kept, uint32(k))
			}
			return kept
		}
		stages := map[string]flow.Stage{
			"filter-chunks": operators.FilterChunks(func(vals []int64, kept []uint32) ([]uint32, error) {
				return pick(vals, kept), nil
			}),
			"filter-map-chunks": operators.FilterMapChunks(func(in, out []int64, kept []uint32) ([]uint32, error) {
				copy(out, in)
				return pick(in, kept), nil
			}),
		}
		formatted := operators.FilterMapChunks(func(in []int64, out []string, kept []uint32) ([]uint32, error) {
			for k, v := range in {
				out[k] = fmt.Sprint(v)
			}
			return pick(in, kept), nil
		})
		check := func(name string, n int, err error) {
			t.Helper()
			var se *flow.StageError
			if !errors.As(err, &se) || se.Stage != name || se.Part != 5 || !strings.Contains(err.Error(), "kept") {
				t.Errorf("%s, %s: error %v: want a %s error in batch 5 about kept positions", name, what, err, name)
			}
			if n > 550 {
				t.Errorf("%s, %s: %d items before the error, past the bad chunk", name, what, n)
			}
		}
		for name, stage := range stages {
			n, err := countUntilError[int64](t, flow.From(source(1000, 100, 10)).Via(stage).Parallel(4))
			check(name, n, err)
		}
		n, err := countUntilError[string](t, flow.From(source(1000, 100, 10)).Via(formatted).Parallel(4))
		check("filter-map-chunks", n, err)
	}
}

// countUntilError runs p and returns how many items it gave and the
// error it ended with.
func countUntilError[T any](t *testing.T, p *flow.Pipeline) (int, error) {
	n := 0
	var err error
	for _, err = range flow.Items[T](t.Context(), p) {
		if err == nil {
			n++
		}
	}
	return n, err
}

func TestMapChunksError(t *testing.T) {
	boom := errors.New("boom")
	p := flow.From(source(1000, 100, 10)).Via(operators.MapChunks(func(in, out []int64) error {
		for k, v := range in {
			if v == 555 {
				return boom
			}
			out[k] = v
		}
		return nil
	})).Parallel(4)
	_, err := countUntilError[int64](t, p)
	var se *flow.StageError
	if !errors.Is(err, boom) || !errors.As(err, &se) || se.Stage != "map-chunks" || se.Part != 5 {
		t.Errorf("error %v: want boom in stage map-chunks, batch 5", err)
	}
}

func TestFilterMapChunksError(t *testing.T) {
	boom := errors.New("boom")
	p := flow.From(source(1000, 100, 10)).Via(operators.FilterMapChunks(func(in []int64, out []string, kept []uint32) ([]uint32, error) {
		for k, v := range in {
			if v == 555 {
				return kept, boom
			}
			out[len(kept)] = fmt.Sprint(v)
			kept = append(kept, uint32(k))
		}
		return kept, nil
	})).Parallel(4)
	_, err := countUntilError[string](t, p)
	var se *flow.StageError
	if !errors.Is(err, boom) || !errors.As(err, &se) || se.Stage != "filter-map-chunks" || se.Part != 5 {
		t.Errorf("error %v: want boom in stage filter-map-chunks, batch 5", err)
	}
}
