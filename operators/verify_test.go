package operators_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// The tests here check each operator against a plain serial computation in
// Go, at several parallelisms and both orderings, and check with
// determinism.Verify that parallel runs reproduce the serial run exactly.

const srcName = "operators-test"

var parallelisms = []int{1, 2, 3, 4, 8}

// sourceID is the ID the test source gives row i.
func sourceID(i int64) rowid.ID {
	return rowid.Ordinal(uint64(i)).Combine(rowid.FromString(srcName))
}

// forkID is the ID of the k-th output of a flat-map for the input id.
func forkID(id rowid.ID, k int) rowid.ID {
	id = id.Fork()
	for range k {
		id = id.Next()
	}
	return id
}

func source(n int64, partition, chunk int) flow.Source[int64] {
	return sources.Generate(n, func(i int64) (int64, error) { return i, nil },
		sources.Named(srcName), sources.PartitionItems(partition), sources.ChunkSize(chunk))
}

// collect runs p and returns its items.
func collect[T any](t *testing.T, p *flow.Pipeline) []flow.Item[T] {
	t.Helper()
	var out []flow.Item[T]
	for it, err := range flow.Items[T](context.Background(), p) {
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		out = append(out, it)
	}
	return out
}

// equalItems reports the first difference between got and want.
func equalItems[T comparable](t *testing.T, what string, got, want []flow.Item[T]) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("%s: item %d is %+v, want %+v", what, i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
	}
}

// checkUnordered checks an unordered stream: partitions may come in any
// order, but each is whole and in order, so a stable sort by batch gives
// the serial stream.
func checkUnordered[T comparable](t *testing.T, what string, got, want []flow.Item[T]) {
	t.Helper()
	sorted := slices.Clone(got)
	slices.SortStableFunc(sorted, func(a, b flow.Item[T]) int { return cmp.Compare(a.Part, b.Part) })
	equalItems(t, what+" (sorted by batch)", sorted, want)
}

func uniqueIDs[T any](t *testing.T, what string, items []flow.Item[T]) {
	t.Helper()
	seen := make(map[rowid.ID]int, len(items))
	for i, it := range items {
		if j, ok := seen[it.ID]; ok {
			t.Fatalf("%s: items %d and %d share the ID %v", what, j, i, it.ID)
		}
		seen[it.ID] = i
	}
}

func verify[T any](t *testing.T, build func(n int) *flow.Pipeline) {
	t.Helper()
	err := determinism.Verify[T](context.Background(), build,
		determinism.Parallelisms(parallelisms[1:]...), determinism.Runs(3))
	if err != nil {
		t.Fatal(err)
	}
}

// The mixed pipeline: a filter that drops about half the rows and every
// row of one partition in five, a flat-map with 0 to 3 outputs per input,
// and a map whose cost varies from row to row.

const (
	mixedRows      = 6000
	mixedPartition = 100
)

func keep(v int64) bool { return (v/mixedPartition)%5 != 3 && (v*2654435761)%7 < 4 }

func fanOut(v int64) int { return int((v * 31) % 4) }

type out struct {
	Src  int64
	K    int
	Spin uint64
}

func expand(v int64) ([]out, error) {
	outs := make([]out, fanOut(v))
	for k := range outs {
		outs[k] = out{Src: v, K: k}
	}
	return outs, nil
}

// spin works for a time that depends on n, so that workers finish their
// partitions out of step.
func spin(n int64) uint64 {
	x := uint64(n)
	for range n * 300 {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func work(o out) (out, error) {
	o.Spin = spin((o.Src + int64(o.K)) % 7)
	return o, nil
}

// mixedSerial computes the mixed pipeline's items in plain Go.
func mixedSerial() []flow.Item[out] {
	var items []flow.Item[out]
	for i := range int64(mixedRows) {
		if !keep(i) {
			continue
		}
		for k := range fanOut(i) {
			o, _ := work(out{Src: i, K: k})
			items = append(items, flow.Item[out]{Part: i / mixedPartition, ID: forkID(sourceID(i), k), Value: o})
		}
	}
	return items
}

func TestSerialEqualsParallel(t *testing.T) {
	shapes := map[string]func(n int) *flow.Pipeline{
		// One parallel group: source and operators fused on n workers.
		"fused": func(n int) *flow.Pipeline {
			return flow.From(source(mixedRows, mixedPartition, 32)).Parallel(n).
				Via(operators.Filter(keep)).Parallel(n).
				Via(operators.FlatMap(expand)).Parallel(n).
				Via(operators.Map(work)).Parallel(n)
		},
		// Two parallel groups of different sizes with a serial stage
		// between them, so partitions go through two merges.
		"groups": func(n int) *flow.Pipeline {
			return flow.From(source(mixedRows, mixedPartition, 32)).
				Via(operators.Filter(keep)).Parallel(n).
				Via(operators.FlatMap(expand)).
				Via(operators.Map(work)).Parallel(n + 1)
		},
		// The filter after the flat-map compacts explicit ID lists; as keep
		// looks only at the source row, the items are the same.
		"filter after flat-map": func(n int) *flow.Pipeline {
			return flow.From(source(mixedRows, mixedPartition, 32)).Parallel(n).
				Via(operators.FlatMap(expand)).Parallel(n).
				Via(operators.Filter(func(o out) bool { return keep(o.Src) })).Parallel(n).
				Via(operators.Map(work)).Parallel(n)
		},
		// A serial source feeding one parallel map.
		"map only": func(n int) *flow.Pipeline {
			return flow.From(source(mixedRows, mixedPartition, 7)).
				Via(operators.Filter(keep)).
				Via(operators.FlatMap(expand)).
				Via(operators.Map(work)).Parallel(n)
		},
	}
	want := mixedSerial()
	uniqueIDs(t, "serial computation", want)
	for name, build := range shapes {
		t.Run(name, func(t *testing.T) {
			verify[out](t, build)
			for _, n := range parallelisms {
				got := collect[out](t, build(n))
				equalItems(t, fmt.Sprintf("parallelism %d", n), got, want)
				uniqueIDs(t, fmt.Sprintf("parallelism %d", n), got)
			}
		})
	}
}

// variants runs check on build at every parallelism, ordered and, where
// the last stage runs on several workers, unordered.
func variants[T comparable](t *testing.T, want []flow.Item[T], build func(n int) *flow.Pipeline) {
	t.Helper()
	verify[T](t, build)
	for _, n := range parallelisms {
		equalItems(t, fmt.Sprintf("parallelism %d", n), collect[T](t, build(n)), want)
		if n > 1 {
			checkUnordered(t, fmt.Sprintf("parallelism %d, unordered", n), collect[T](t, build(n).Unordered()), want)
		}
	}
}

func TestMap(t *testing.T) {
	const rows, part = 1000, 64
	var want []flow.Item[string]
	for i := range int64(rows) {
		want = append(want, flow.Item[string]{Part: i / part, ID: sourceID(i), Value: fmt.Sprint(i*i, " ", spin(i%7))})
	}
	variants(t, want, func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 10)).
			Via(operators.Map(func(v int64) (string, error) {
				return fmt.Sprint(v*v, " ", spin(v%7)), nil
			})).Parallel(n)
	})
	// A map to the same type works in place.
	var same []flow.Item[int64]
	for i := range int64(rows) {
		same = append(same, flow.Item[int64]{Part: i / part, ID: sourceID(i), Value: -i})
	}
	variants(t, same, func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 10)).Parallel(n).
			Via(operators.Map(func(v int64) (int64, error) { return -v, nil })).Parallel(n)
	})
}

func TestFilter(t *testing.T) {
	const rows, part = 1000, 50
	for name, keep := range map[string]func(int64) bool{
		"half and whole partitions": func(v int64) bool { return (v/part)%3 != 1 && v%2 == 0 },
		"all":                       func(int64) bool { return true },
		"none":                      func(int64) bool { return false },
		"last of each partition":    func(v int64) bool { return v%part == part-1 },
	} {
		t.Run(name, func(t *testing.T) {
			var want []flow.Item[int64]
			for i := range int64(rows) {
				if keep(i) {
					want = append(want, flow.Item[int64]{Part: i / part, ID: sourceID(i), Value: i})
				}
			}
			variants(t, want, func(n int) *flow.Pipeline {
				return flow.From(source(rows, part, 16)).Via(operators.Filter(keep)).Parallel(n)
			})
			// Two filters in a row thin an already thinned chunk.
			variants(t, want, func(n int) *flow.Pipeline {
				return flow.From(source(rows, part, 16)).Parallel(n).
					Via(operators.Filter(func(v int64) bool { return v%part != part-1 || keep(v) })).Parallel(n).
					Via(operators.Filter(keep)).Parallel(n)
			})
		})
	}
}

func TestFlatMap(t *testing.T) {
	const rows, part = 400, 40
	// Outputs per input: none for a whole partition, up to 3 otherwise,
	// and one input with more outputs than fit in one chunk.
	count := func(v int64) int {
		switch {
		case v/part == 2:
			return 0
		case v == 123:
			return 5000
		}
		return int(v % 4)
	}
	var want []flow.Item[[2]int64]
	for i := range int64(rows) {
		for k := range count(i) {
			want = append(want, flow.Item[[2]int64]{Part: i / part, ID: forkID(sourceID(i), k), Value: [2]int64{i, int64(k)}})
		}
	}
	build := func(n int) *flow.Pipeline {
		return flow.From(source(rows, part, 8)).
			Via(operators.FlatMap(func(v int64) ([][2]int64, error) {
				outs := make([][2]int64, count(v))
				for k := range outs {
					outs[k] = [2]int64{v, int64(k)}
				}
				return outs, nil
			})).Parallel(n)
	}
	variants(t, want, build)
	uniqueIDs(t, "flat-map", collect[[2]int64](t, build(4)))
}

func TestTake(t *testing.T) {
	const rows, part = 1000, 100
	for _, n := range []int64{0, 1, 57, 100, 200, 999, 1000, 1001, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var want []flow.Item[int64]
			for i := range min(n, rows) {
				want = append(want, flow.Item[int64]{Part: i / part, ID: sourceID(i), Value: 2 * i})
			}
			// Take is serial; what comes before it may be parallel.
			verify[int64](t, func(p int) *flow.Pipeline {
				return flow.From(source(rows, part, 30)).Parallel(p).
					Via(operators.Map(func(v int64) (int64, error) { return 2 * v, nil })).Parallel(p).
					Via(operators.Take[int64](n))
			})
			for _, p := range parallelisms {
				got := collect[int64](t, flow.From(source(rows, part, 30)).Parallel(p).
					Via(operators.Map(func(v int64) (int64, error) { return 2 * v, nil })).Parallel(p).
					Via(operators.Take[int64](n)))
				equalItems(t, fmt.Sprintf("parallelism %d", p), got, want)
			}
			// Take of an unending source ends the run.
			want = nil
			for i := range n {
				want = append(want, flow.Item[int64]{Part: i / part, ID: sourceID(i), Value: 2 * i})
			}
			got := collect[int64](t, flow.From(sources.Generate(-1, func(i int64) (int64, error) { return 2 * i, nil },
				sources.Named(srcName), sources.PartitionItems(part))).Parallel(3).Via(operators.Take[int64](n)))
			equalItems(t, "unending source", got, want)
		})
	}
	if err := flow.From(source(10, 5, 5)).Via(operators.Take[int64](3)).Parallel(2).Err(); err == nil {
		t.Error("Take on 2 workers: no error")
	}
}
