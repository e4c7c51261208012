package flow_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// A stage on several workers that fails in two partitions fails the run
// as the serial run fails: with the error of the first of them in
// partition order, after the same items, even when the later partition
// fails first. Partition 0 fails at its row 50 only once partition 2 has
// failed at its row 250.
func TestParallelErrorIsTheSerialRunsError(t *testing.T) {
	checkSerialRunsError(t, "two partitions fail", func(par int) *flow.Pipeline {
		later := make(chan struct{})
		return flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil },
			sources.PartitionItems(100), sources.ChunkSize(10))).
			Via(operators.Map(func(v int64) (int64, error) {
				switch {
				case v == 50 && par > 1:
					<-later
					return 0, fmt.Errorf("row %d", v)
				case v == 50:
					return 0, fmt.Errorf("row %d", v)
				case v == 250:
					if par > 1 {
						close(later)
					}
					return 0, fmt.Errorf("row %d", v)
				}
				return v, nil
			})).Parallel(par)
	})
}

// checkSerialRunsError checks that the pipeline build(par) makes, run at
// parallelism 2, 3 and 4 through Items and through Run (a parallel
// group's merge feeding a sink), fails with the error of its serial run,
// build(1), after the same items; and that the serial run fails at row
// 50 of partition 0.
func checkSerialRunsError(t *testing.T, name string, build func(par int) *flow.Pipeline) {
	t.Helper()
	run := func(par int, viaRun bool) ([]flow.Item[int64], error) { return itemsVia(build(par), viaRun) }
	wantItems, wantErr := run(1, false)
	var se *flow.StageError
	if !errors.As(wantErr, &se) || se.Part != 0 || len(wantItems) != 50 {
		t.Fatalf("%s: serial run: %d items, error %v; want 50 and partition 0's error", name, len(wantItems), wantErr)
	}
	for _, par := range []int{2, 3, 4} {
		for _, viaRun := range []bool{false, true} {
			items, err := run(par, viaRun)
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("%s: parallel %d, Run %v: error %v, want the serial run's, %v", name, par, viaRun, err, wantErr)
			}
			if !slices.Equal(items, wantItems) {
				t.Fatalf("%s: parallel %d, Run %v: %d items before the error, want the serial run's %d", name, par, viaRun, len(items), len(wantItems))
			}
		}
	}
}

// A failure met upstream of a parallel stage, at a later partition, does
// not pre-empt the stage's failure at an earlier one: the run fails as
// the serial run fails, with the earlier partition's error after the same
// items. Upstream here is a serial stage, a serial stage behind Prefetch,
// the source, or a parallel stage feeding the parallel one through a
// serial stage; it fails at row 350 (partition 3) first, and the parallel
// stage fails at row 50 (partition 0) only once it has.
func TestUpstreamErrorIsOrderedToo(t *testing.T) {
	testutil.CheckGoroutines(t)
	failAt := func(row int64, wait, done chan struct{}) func(int64) (int64, error) {
		return func(v int64) (int64, error) {
			if v != row {
				return v, nil
			}
			if wait != nil {
				<-wait
			}
			if done != nil {
				close(done)
			}
			return 0, fmt.Errorf("row %d", v)
		}
	}
	gen := func(f func(int64) (int64, error)) *flow.Pipeline {
		return flow.From(sources.Generate(1000, f, sources.PartitionItems(100), sources.ChunkSize(10)))
	}
	ident := func(v int64) (int64, error) { return v, nil }
	for _, tc := range []struct {
		name string
		// build's upstream fails at row 350 and closes done; the
		// parallel stage fails at row 50 after wait is closed.
		build func(par int, wait, done chan struct{}) *flow.Pipeline
	}{
		{"serial stage", func(par int, wait, done chan struct{}) *flow.Pipeline {
			return gen(ident).Via(operators.Map(failAt(350, nil, done))).
				Via(operators.Map(failAt(50, wait, nil))).Parallel(par)
		}},
		{"serial stage behind Prefetch", func(par int, wait, done chan struct{}) *flow.Pipeline {
			return gen(ident).Via(operators.Map(failAt(350, nil, done))).Via(operators.Prefetch[int64](4)).
				Via(operators.Map(failAt(50, wait, nil))).Parallel(par)
		}},
		{"source", func(par int, wait, done chan struct{}) *flow.Pipeline {
			return gen(failAt(350, nil, done)).Via(operators.Map(failAt(50, wait, nil))).Parallel(par)
		}},
		{"parallel stage", func(par int, wait, done chan struct{}) *flow.Pipeline {
			return gen(ident).Via(operators.Map(failAt(350, nil, done))).Parallel(par).
				Via(operators.Map(ident)).
				Via(operators.Map(failAt(50, wait, nil))).Parallel(par)
		}},
	} {
		checkSerialRunsError(t, tc.name, func(par int) *flow.Pipeline {
			var wait, done chan struct{}
			if par > 1 {
				wait = make(chan struct{})
				done = wait
			}
			return tc.build(par, wait, done)
		})
	}
}

// itemsVia runs p through Items, or through Run into a sink (a parallel
// group's merge then feeds the sink), and returns the items before its
// error.
func itemsVia(p *flow.Pipeline, viaRun bool) ([]flow.Item[int64], error) {
	var items []flow.Item[int64]
	if viaRun {
		err := p.To(sinks.ForEach(func(it flow.Item[int64]) error {
			items = append(items, it)
			return nil
		})).Run(context.Background())
		return items, err
	}
	for it, err := range flow.Items[int64](context.Background(), p) {
		if err != nil {
			return items, err
		}
		items = append(items, it)
	}
	return items, nil
}
