package main

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
)

// Each rowflow variant and its hand-written loop compute the same output,
// whatever the row count.
func TestPairsAgree(t *testing.T) {
	for _, n := range []int{1, 31, 32, 1000, 5003} {
		rows := tokenRows(n)
		for _, p := range pairs() {
			got, err := p.flow(t.Context(), rows)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := p.hand(t.Context(), rows)
			if got != want || got == 0 {
				t.Errorf("%s over %d rows: rowflow's checksum %d, the loop's %d", p.name, n, got, want)
			}
		}
	}
}

// The map→filter rows run, check their counts and print one row each,
// the last on one processor, which they give back afterwards.
func TestMapFilterRows(t *testing.T) {
	var b strings.Builder
	procs := runtime.GOMAXPROCS(0)
	if err := mapFilterRows(t.Context(), &b, 5000, 1); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(b.String(), "| map→filter"); rows != 3 || !strings.Contains(b.String(), "one processor (GOMAXPROCS=1)") {
		t.Fatalf("%d rows, want 3, the last on one processor:\n%s", rows, b.String())
	}
	if now := runtime.GOMAXPROCS(0); now != procs {
		t.Errorf("GOMAXPROCS is %d after the rows, %d before", now, procs)
	}
}

// The memory pipelines run and count what they should.
func TestMemoryPipelines(t *testing.T) {
	const n = 3000
	var batches int64
	if err := batching(n).To(sinks.Count[operators.Padded[int32]](&batches)).Run(t.Context()); err != nil || batches == 0 {
		t.Fatalf("batching: %d batches, %v", batches, err)
	}
	var rows int64
	c := operators.Cache[[]int32](cached(n), operators.OnDisk(t.TempDir()+"/c"))
	for range 2 {
		if err := flow.From(c).Parallel(2).To(sinks.Count[[]int32](&rows)).Run(t.Context()); err != nil || rows != n {
			t.Fatalf("disk cache: %d rows, %v", rows, err)
		}
	}
}

// BenchmarkPairs runs each batching stage and its hand-written loop over
// the same 200,000 token rows; compare the two ns/op of a pair.
func BenchmarkPairs(b *testing.B) {
	rows := tokenRows(200_000)
	for _, p := range pairs() {
		for side, f := range map[string]func(context.Context, [][]int32) (uint64, error){"rowflow": p.flow, "hand": p.hand} {
			b.Run(p.name+"/"+side, func(b *testing.B) {
				for b.Loop() {
					if _, err := f(b.Context(), rows); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
