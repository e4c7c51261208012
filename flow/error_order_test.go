package flow_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
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
	run := func(par int, viaRun bool) ([]flow.Item[int64], error) {
		later := make(chan struct{})
		p := flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil },
			sources.PartitionSize(100), sources.ChunkSize(10))).
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
		var items []flow.Item[int64]
		if viaRun { // the group's merge feeds a sink
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
	wantItems, wantErr := run(1, false)
	var se *flow.StageError
	if !errors.As(wantErr, &se) || se.Part != 0 || len(wantItems) != 50 {
		t.Fatalf("serial run: %d items, error %v; want 50 and partition 0's error", len(wantItems), wantErr)
	}
	for _, par := range []int{2, 3, 4} {
		for _, viaRun := range []bool{false, true} {
			items, err := run(par, viaRun)
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("parallel %d, Run %v: error %v, want the serial run's, %v", par, viaRun, err, wantErr)
			}
			if !slices.Equal(items, wantItems) {
				t.Fatalf("parallel %d, Run %v: %d items before the error, want the serial run's %d", par, viaRun, len(items), len(wantItems))
			}
		}
	}
}
