package operators_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

func TestPrefetchKeepsItems(t *testing.T) {
	const rows = 3000
	var want []flow.Item[int64]
	for i := range int64(rows) {
		if keep(i) {
			want = append(want, flow.Item[int64]{Part: i / 50, ID: sourceID(i), Value: i})
		}
	}
	variants(t, want, func(n int) *flow.Pipeline {
		return flow.From(source(rows, 50, 16)).Via(operators.Filter(keep)).Parallel(n).
			Via(operators.Prefetch[int64](3)).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(n)
	})
}

// The consumer of the first chunk waits until the source has produced the
// fourth: only a source that runs ahead of its consumer gets there. In the
// synctest bubble a pipeline that cannot run ahead deadlocks, which fails
// the test instead of hanging it.
func TestPrefetchRunsAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const chunk, ahead = 10, 4
		produced := make(chan int64, 100)
		src := sources.Generate(200, func(i int64) (int64, error) {
			if i%chunk == 0 {
				produced <- i / chunk
			}
			return i, nil
		}, sources.ChunkSize(chunk), sources.PartitionItems(chunk))
		var got int64
		first := true
		err := flow.From(src).Via(operators.Prefetch[int64](ahead)).
			To(sinks.ForEach(func(it flow.Item[int64]) error {
				if first {
					first = false
					for c := range produced {
						if c == ahead {
							break
						}
					}
				}
				got += it.Value
				return nil
			})).Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got != 199*200/2 {
			t.Errorf("sum %d, want %d", got, 199*200/2)
		}
	})
}

func TestPrefetchStopAndErrors(t *testing.T) {
	// Take after Prefetch ends an unending source.
	p := flow.From(sources.Generate(-1, func(i int64) (int64, error) { return i, nil })).
		Via(operators.Prefetch[int64](2)).Via(operators.Take[int64](5000))
	n := 0
	for v, err := range flow.Values[int64](t.Context(), p) {
		if err != nil {
			t.Fatal(err)
		}
		if v != int64(n) {
			t.Fatalf("value %d at %d", v, n)
		}
		n++
	}
	if n != 5000 {
		t.Fatalf("%d values, want 5000", n)
	}
	// An error downstream of the queue fails the run.
	boom := errors.New("boom")
	err := flow.From(source(1000, 100, 10)).Via(operators.Prefetch[int64](2)).
		To(sinks.ForEach(func(it flow.Item[int64]) error {
			if it.Value == 500 {
				return boom
			}
			return nil
		})).Run(t.Context())
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	for _, err := range flow.Items[int64](t.Context(), flow.From(source(10, 5, 5)).Via(operators.Prefetch[int64](0))) {
		if err == nil {
			t.Fatal("Prefetch(0): the run gave an item")
		}
	}
}
