package operators_test

import (
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// A nil function, source, pipeline or destination is an error of the
// pipeline that uses it, kept when it is built, not a panic when a run
// reaches it.
func TestNilArguments(t *testing.T) {
	nums := func() *flow.Pipeline { return flow.From(sources.Slice([]int64{1, 2, 3})) }
	toks := func() *flow.Pipeline { return flow.From(sources.Slice([][]int32{{1}, {2, 3}})) }
	cases := []struct {
		name string
		p    *flow.Pipeline
		want string
	}{
		{"Map", nums().Via(operators.Map[int64, int64](nil)), "Map: nil function"},
		{"Filter", nums().Via(operators.Filter[int64](nil)), "Filter: nil function"},
		{"FlatMap", nums().Via(operators.FlatMap[int64, int64](nil)), "FlatMap: nil function"},
		{"MapChunks", nums().Via(operators.MapChunks[int64, int64](nil)), "MapChunks: nil function"},
		{"FilterChunks", nums().Via(operators.FilterChunks[int64](nil)), "FilterChunks: nil function"},
		{"FilterMapChunks", nums().Via(operators.FilterMapChunks[int64, int64](nil)), "FilterMapChunks: nil function"},
		{"SetIDs", nums().Via(operators.SetIDs[int64](nil)), "SetIDs: nil function"},
		{"ReduceEvery", nums().Via(operators.ReduceEvery[int64, int64](2, nil)), "reduce: nil function"},
		{"ReduceRuns key", nums().Via(operators.ReduceRuns[int64, int64](nil, func(a, v int64) (int64, error) { return a + v, nil })), "nil key function"},
		{"BucketByLength", toks().Via(operators.BucketByLength[[]int32](nil, operators.TokenBudget(8))), "bucket-by-length: nil function"},
		{"BucketPool", toks().Via(operators.BucketPool[[]int32](2, 4, nil)), "bucket-pool: nil function"},
		{"EvenRanks", flow.From(operators.EvenRanks[int64](nil, nil)), "nil source"},
		{"Cache", flow.From(operators.Cache[int64](nil)), "nil pipeline"},
		{"Generate", flow.From(sources.Generate[int64](3, nil)), "nil function"},
		{"ForEach", nums().To(sinks.ForEach[int64](nil)), "for-each: nil function"},
		{"Count", nums().To(sinks.Count[int64](nil)), "count: nil destination"},
	}
	for _, c := range cases {
		if err := c.p.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: build error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// A run of such a pipeline fails with that error and reads nothing.
	for _, err := range flow.Items[int64](t.Context(), nums().Via(operators.Map[int64, int64](nil))) {
		if err == nil || !strings.Contains(err.Error(), "Map: nil function") {
			t.Fatalf("run: item or error %v, want the build error", err)
		}
	}
}
