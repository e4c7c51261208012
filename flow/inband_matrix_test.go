package flow_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// listFailSource has parts partitions of 100 rows per epoch; in epoch
// failEpoch, listing fails after partition failAfter.
type listFailSource struct {
	parts, failEpoch, failAfter int64
}

func (listFailSource) Info() flow.Info { return flow.Info{Name: "listfail"} }
func (s listFailSource) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[int64], error] {
	return func(yield func(flow.Partition[int64], error) bool) {
		for b := range s.parts {
			if env.Epoch == s.failEpoch && b == s.failAfter+1 {
				yield(flow.Partition[int64]{}, errors.New("listing failed"))
				return
			}
			p := flow.Partition[int64]{Part: b, Read: func(ctx context.Context, out flow.Emitter[int64]) error {
				vals := slicepool.Alloc[int64](100)
				for i := range int64(100) {
					vals = append(vals, env.Epoch*1000+b*100+i)
				}
				return out.Push(ctx, flow.Chunk[int64]{Part: b, IDs: flow.OrdinalIDs(rowid.ID{}, uint64(b*100), 100), Values: vals, End: true})
			}}
			if !yield(p, nil) {
				return
			}
		}
	}
}

// flushFailOp passes its input and fails at Flush.
type flushFailOp struct{}

func (flushFailOp) Info() flow.Info                                    { return flow.Info{Name: "flushfail", Serial: "test"} }
func (flushFailOp) NewProcessor(flow.Env) flow.Processor[int64, int64] { return flushFailProc{} }

type flushFailProc struct{}

func (flushFailProc) Process(ctx context.Context, c flow.Chunk[int64], out flow.Emitter[int64]) error {
	return out.Push(ctx, c)
}
func (flushFailProc) Flush(context.Context, flow.Emitter[int64]) error {
	return errors.New("flush failed")
}

func rowFail(rows ...int64) func(int64) (int64, error) {
	return func(v int64) (int64, error) {
		if slices.Contains(rows, v) {
			return 0, fmt.Errorf("row %d", v)
		}
		return v, nil
	}
}

func genN(n int64, f func(int64) (int64, error)) *flow.Pipeline {
	return flow.From(sources.Generate(n, f, sources.PartitionItems(100), sources.ChunkSize(10)))
}

type outcome struct {
	vals []int64
	err  string
}

func viaItems(p *flow.Pipeline) outcome { return outcomeOf(itemsVia(p, false)) }

func viaRun(p *flow.Pipeline) outcome { return outcomeOf(itemsVia(p, true)) }

func outcomeOf(items []flow.Item[int64], err error) outcome {
	var o outcome
	for _, it := range items {
		o.vals = append(o.vals, it.Value)
	}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

func viaCursor(t *testing.T, p *flow.Pipeline) outcome {
	var o outcome
	s, err := flow.Cursors[int64](context.Background(), p, 1)
	if err != nil {
		t.Fatal(err)
	}
	for it, err := range s.Cursors()[0].All() {
		if err != nil {
			o.err = err.Error()
			break
		}
		o.vals = append(o.vals, it.Value)
	}
	if err := s.Close(); (err == nil) != (o.err == "") {
		o.err += fmt.Sprintf(" [set Close: %v]", err)
	}
	return o
}

// TestErrorsInBandAcrossShapes runs pipelines whose failures lie in
// several parts (sources whose listing fails, serial stages whose Flush
// fails, Take before and after a failure, Epochs, Concat, a cache's first
// pass, three parallel groups) at parallelism 2, 3 and 4 through Items,
// Run and one cursor, and checks each gives the serial run's values and
// error.
func TestErrorsInBandAcrossShapes(t *testing.T) {
	ident := func(v int64) (int64, error) { return v, nil }
	cases := []struct {
		name  string
		build func(par int) *flow.Pipeline
	}{
		{"take before upstream failure", func(par int) *flow.Pipeline {
			return genN(1000, ident).Via(operators.Map(rowFail(350))).
				Via(operators.Map(ident)).Parallel(par).Via(operators.Take[int64](120))
		}},
		{"source fails, take, parallel after", func(par int) *flow.Pipeline {
			return genN(1000, rowFail(350)).Via(operators.Map(ident)).Parallel(par).
				Via(operators.Take[int64](120)).Via(operators.Map(ident)).Parallel(par)
		}},
		{"epochs listing fails serial source", func(par int) *flow.Pipeline {
			return flow.From[int64](listFailSource{parts: 4, failEpoch: 1, failAfter: 1}).Epochs(3).
				Via(operators.Map(ident)).Parallel(par)
		}},
		{"epochs listing fails parallel source", func(par int) *flow.Pipeline {
			return flow.From[int64](listFailSource{parts: 4, failEpoch: 1, failAfter: 1}).Parallel(par).Epochs(3).
				Via(operators.Map(rowFail(1150))).Parallel(par)
		}},
		{"listing fails first, parallel source", func(par int) *flow.Pipeline {
			return flow.From[int64](listFailSource{parts: 4, failEpoch: 0, failAfter: -1}).Parallel(par).
				Via(operators.Map(ident)).Parallel(par)
		}},
		{"concat of failing input", func(par int) *flow.Pipeline {
			in := genN(500, ident).Via(operators.Map(rowFail(250))).Parallel(par)
			return flow.From(operators.Concat[int64](genN(300, ident), in, genN(100, ident))).
				Via(operators.Map(ident)).Parallel(par)
		}},
		{"cache first pass of failing input", func(par int) *flow.Pipeline {
			in := genN(500, ident).Via(operators.Map(rowFail(250))).Parallel(par)
			return flow.From(operators.Cache[int64](in)).Via(operators.Map(ident)).Parallel(par)
		}},
		{"flush fails", func(par int) *flow.Pipeline {
			return genN(1000, ident).Via(flow.NewStage[int64, int64](flushFailOp{})).
				Via(operators.Map(ident)).Parallel(par)
		}},
		{"flush fails behind prefetch", func(par int) *flow.Pipeline {
			return genN(1000, ident).Via(operators.Map(ident)).Parallel(par).Via(operators.Prefetch[int64](2)).
				Via(flow.NewStage[int64, int64](flushFailOp{})).
				Via(operators.Map(ident)).Parallel(par)
		}},
		{"parallel fails, prefetch, parallel", func(par int) *flow.Pipeline {
			return genN(1000, ident).Via(operators.Map(rowFail(350, 720))).Parallel(par).Via(operators.Prefetch[int64](2)).
				Via(operators.Map(rowFail(740))).Parallel(par)
		}},
		{"batch between groups", func(par int) *flow.Pipeline {
			return genN(1000, rowFail(650)).Via(operators.Map(ident)).Parallel(par).
				Via(operators.Filter(func(v int64) bool { return v%3 != 0 })).
				Via(operators.Map(rowFail(100))).Parallel(par)
		}},
		{"panic in source", func(par int) *flow.Pipeline {
			return genN(1000, func(v int64) (int64, error) {
				if v == 350 {
					panic("boom")
				}
				return v, nil
			}).Via(operators.Map(ident)).Parallel(par)
		}},
		{"three groups", func(par int) *flow.Pipeline {
			return genN(2000, rowFail(1950)).Parallel(par).Via(operators.Map(rowFail(1500))).
				Via(operators.Map(ident)).Parallel(par).Via(operators.Map(rowFail(1200))).
				Via(operators.Map(ident)).Parallel(par).Via(operators.Map(rowFail(1000))).
				Via(operators.Map(ident)).Parallel(par)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testutil.Synctest(t, func(t *testing.T) {
				want := viaItems(tc.build(1))
				if w2 := viaRun(tc.build(1)); w2.err != want.err || !slices.Equal(w2.vals, want.vals) {
					t.Logf("serial Items and Run differ: %d %q vs %d %q", len(want.vals), want.err, len(w2.vals), w2.err)
				}
				for _, par := range []int{2, 3, 4} {
					for name, got := range map[string]outcome{
						"items": viaItems(tc.build(par)), "run": viaRun(tc.build(par)), "cursor": viaCursor(t, tc.build(par)),
					} {
						if got.err != want.err || !slices.Equal(got.vals, want.vals) {
							t.Errorf("par %d via %s: %d items, err %q; serial %d items, err %q", par, name, len(got.vals), got.err, len(want.vals), want.err)
						}
					}
				}
			})
		})
	}
}
