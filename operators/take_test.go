package operators_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
)

// TestTakeNegativeIsABuildError: Take(-1) does not panic while the
// pipeline is built; the pipeline keeps the error, and running it, or
// ranging over it, returns that error without reading anything.
func TestTakeNegativeIsABuildError(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		var p *flow.Pipeline
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("building panicked: %v", r)
				}
			}()
			p = flow.From(source(100, 10, 10)).Via(operators.Take[int64](-1))
		}()
		const want = "operators: Take(-1): the count must be at least 0"
		if err := p.Err(); err == nil || err.Error() != want {
			t.Fatalf("Err() = %v, want %q", err, want)
		}
		var n int64
		if err := p.To(sinks.Count[int64](&n)).Run(context.Background()); err == nil || err.Error() != want || n != 0 {
			t.Fatalf("Run = %v with %d values, want %q and none", err, n, want)
		}
		items := 0
		for _, err := range flow.Items[int64](context.Background(), p) {
			if err == nil {
				items++
				continue
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("Items: %v, want %q", err, want)
			}
		}
		if items != 0 {
			t.Fatalf("Items yielded %d values before the error", items)
		}
		// Take(0) is a count, not a mistake: it ends the stream at once.
		got := testutil.Items[int64](t, flow.From(source(100, 10, 10)).Via(operators.Take[int64](0)))
		if len(got) != 0 {
			t.Fatalf("Take(0) passed on %d values", len(got))
		}
	})
}
