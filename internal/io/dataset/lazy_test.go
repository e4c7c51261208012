package dataset

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestHugeRowCountsPlanLazily: a file whose metadata declares 2^62 rows,
// split by MaxRows, yields its first fragments at once in plan order and
// through a shuffle window, and a global shuffle, which must see every
// fragment, stops at its context's deadline instead of building them all.
func TestHugeRowCountsPlanLazily(t *testing.T) {
	ds := mustDiscover(t, makeHive(t).root)
	huge := MetadataFunc(func(ctx context.Context, f File) ([]int64, error) { return []int64{1 << 62}, nil })
	for _, window := range []int{0, 4} {
		p := mustPlan(t, ds, Config{MaxRows: 1000, Window: window, Metadata: huge})
		n := 0
		for f, err := range p.Fragments(t.Context(), Position{}) {
			if err != nil {
				t.Fatal(err)
			}
			if f.Rows() < 999 || f.Rows() > 1000 {
				t.Fatalf("window %d: fragment %+v", window, f)
			}
			if n++; n == 3 {
				break
			}
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	p := mustPlan(t, ds, Config{MaxRows: 1000, Window: -1, Metadata: huge})
	start := time.Now()
	var got error
	for _, err := range p.Fragments(ctx, Position{}) {
		got = err
		break
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if !errors.Is(got, context.DeadlineExceeded) {
		t.Fatalf("global shuffle: got %v, want the context's deadline", got)
	}
	if elapsed > 1200*time.Millisecond {
		t.Fatalf("global shuffle returned %v after it started; the deadline was 200ms", elapsed)
	}
	t.Logf("global shuffle stopped after %v, %d MiB allocated", elapsed, (after.TotalAlloc-before.TotalAlloc)>>20)
}
