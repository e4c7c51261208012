package flow_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

func tenRows() *flow.Pipeline {
	xs := make([]int64, 10)
	for i := range xs {
		xs[i] = int64(i)
	}
	return flow.From(sources.Slice(xs, sources.PartitionItems(3)))
}

// A user function that calls runtime.Goexit (as t.Fatal in a test's map
// does) fails the run instead of hanging it or ending it early with part
// of the output.
func TestGoexitFailsTheRun(t *testing.T) {
	for _, par := range []int{1, 3} {
		testutil.Synctest(t, func(t *testing.T) {
			p := tenRows().Via(operators.Map(func(x int64) (int64, error) {
				if x == 7 {
					runtime.Goexit()
				}
				return x, nil
			})).Parallel(par)
			var n int64
			err := p.To(sinks.Count[int64](&n)).Run(t.Context())
			if err == nil || !strings.Contains(err.Error(), "runtime.Goexit") {
				t.Errorf("parallelism %d, Run: %d items, %v", par, n, err)
			}
			var loopErr error
			for _, err := range flow.Values[int64](t.Context(), p) {
				loopErr = err
			}
			if loopErr == nil || !strings.Contains(loopErr.Error(), "runtime.Goexit") {
				t.Errorf("parallelism %d, Values: %v", par, loopErr)
			}
		})
	}
}

// Resume at At at the position just past an epoch's last item gives nothing,
// whether the run finds the position from the plan (Map) or by counting
// (Filter, Shuffle); Resume at At past the end of an endless pipeline ends.
// Each is read by a loop and by Run.
func TestAtEpochEnd(t *testing.T) {
	keep := operators.Filter(func(int64) bool { return true })
	id := operators.Map(func(x int64) (int64, error) { return x, nil })
	ints := func(p *flow.Pipeline) [2]int { return count[int64](p) }
	shapes := map[string]struct {
		p     func() *flow.Pipeline
		count func(*flow.Pipeline) [2]int
	}{
		"map":            {func() *flow.Pipeline { return tenRows().Via(id) }, nil},
		"filter":         {func() *flow.Pipeline { return tenRows().Via(keep) }, nil},
		"filter,map":     {func() *flow.Pipeline { return tenRows().Via(keep).Via(id) }, nil},
		"shuffle":        {func() *flow.Pipeline { return tenRows().Via(operators.Shuffle[int64](2)) }, nil},
		"filter,par(3)":  {func() *flow.Pipeline { return tenRows().Via(keep).Parallel(3) }, nil},
		"shuffle,filter": {func() *flow.Pipeline { return tenRows().Via(operators.Shuffle[int64](2)).Via(keep).Parallel(2) }, nil},
		"filter,batch": {func() *flow.Pipeline { return tenRows().Via(keep).Via(operators.Batch[int64](1)) },
			func(p *flow.Pipeline) [2]int { return count[operators.Rows[int64]](p) }},
	}
	for name, shape := range shapes {
		if shape.count == nil {
			shape.count = ints
		}
		for _, c := range []struct {
			epochs int64
			k      int64
			want   int
		}{{2, 9, 11}, {2, 10, 0}, {2, 11, 0}, {flow.Forever, 10, 0}, {flow.Forever, 100, 0}} {
			done := make(chan [2]int, 1)
			go func() { done <- shape.count(shape.p().Epochs(c.epochs).Resume(flow.At(0, c.k))) }()
			select {
			case got := <-done:
				if got != [2]int{c.want, c.want} {
					t.Errorf("%s, Epochs(%d).Resume(flow.At(0, %d)): %d items in a loop, %d by Run; want %d", name, c.epochs, c.k, got[0], got[1], c.want)
				}
			case <-time.After(time.Minute):
				t.Fatalf("%s, Epochs(%d).Resume(flow.At(0, %d)): still running after a minute", name, c.epochs, c.k)
			}
		}
	}
}

// count counts p's items in a loop and by Run; a failure counts -1.
func count[T any](p *flow.Pipeline) [2]int {
	loop := 0
	for _, err := range flow.Items[T](context.Background(), p) {
		if err != nil {
			loop = -1
			break
		}
		loop++
	}
	var n int64
	if err := p.To(sinks.Count[T](&n)).Run(context.Background()); err != nil {
		n = -1
	}
	return [2]int{loop, int(n)}
}
