package operators_test

import (
	"errors"
	"fmt"
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
	var err error
	for _, err = range flow.Items[int64](t.Context(), p) {
	}
	var se *flow.StageError
	if !errors.Is(err, boom) || !errors.As(err, &se) || se.Stage != "map-chunks" || se.Part != 5 {
		t.Errorf("error %v: want boom in stage map-chunks, batch 5", err)
	}
}
