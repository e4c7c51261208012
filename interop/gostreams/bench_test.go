package gostreams_test

import (
	"context"
	"testing"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/extension"
	gsflow "github.com/reugn/go-streams/flow"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/interop/gostreams"
	"github.com/rowflow/rowflow/operators"
)

const benchN = 200_000

func keepEven(v int64) bool { return v%2 == 0 }

// filterStage returns the filter as a go-streams stage or as a rowflow
// stage behind the adapter.
func filterStage(rowflow bool) streams.Flow {
	if rowflow {
		return gostreams.NewFlow[int64, int64](context.Background(), func(p *flow.Pipeline) *flow.Pipeline {
			return p.Via(operators.Filter(keepEven))
		})
	}
	return gsflow.NewFilter(keepEven, 1)
}

// BenchmarkBetweenGoStreams runs map → filter → map in go-streams, with
// the filter either go-streams' own or a rowflow stage behind the
// adapter ("between"), and the filter alone fed by a channel ("alone").
// If the adapter were the slowest part, "between/rowflow" would be
// slower than "between/go-streams"; "alone" compares the two stages
// directly.
func BenchmarkBetweenGoStreams(b *testing.B) {
	for _, shape := range []string{"between", "alone"} {
		for _, rowflow := range []bool{false, true} {
			name := shape + "/go-streams"
			if rowflow {
				name = shape + "/rowflow"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					out := make(chan any)
					var up streams.Flow = filterStage(rowflow)
					src := extension.NewChanSource(feed(benchN))
					if shape == "between" {
						go src.Via(gsflow.NewMap(func(v int64) int64 { return 3 * v }, 1)).Via(up).
							Via(gsflow.NewMap(func(v int64) int64 { return v }, 1)).To(extension.NewChanSink(out))
					} else {
						go src.Via(up).To(extension.NewChanSink(out))
					}
					n := 0
					for range out {
						n++
					}
					if n != benchN/2 {
						b.Fatalf("%d elements", n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchN, "ns/elem")
			})
		}
	}
}
