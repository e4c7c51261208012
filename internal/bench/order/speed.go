package main

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/random/pcg"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

const window = 10_000

// pair is a variant and its reference; each returns a checksum.
type pair struct {
	name, desc string
	variant    func(ctx context.Context, data []int64) (uint64, error)
	reference  func(ctx context.Context, data []int64) (uint64, error)
}

func pairs() []pair {
	return []pair{
		{name: "shuffle", desc: fmt.Sprintf("Slice → Shuffle(%d) → sink, against a hand-written shuffle-buffer loop over the same chunks", window),
			variant: func(ctx context.Context, data []int64) (uint64, error) {
				return ordered(ctx, flow.From(sources.Slice(data)).Via(operators.Shuffle[int64](window)))
			},
			reference: handShuffle},
		{name: "mix", desc: "Mix of three inputs (weights 1:1:1), against Concat of the same three",
			variant: func(ctx context.Context, data []int64) (uint64, error) {
				return unordered(ctx, flow.From(operators.Mix[int64](thirds(data), []float64{1, 1, 1})))
			},
			reference: func(ctx context.Context, data []int64) (uint64, error) {
				return unordered(ctx, flow.From(operators.Concat[int64](thirds(data)...)))
			}},
		{name: "index shuffle", desc: "IndexShuffle(Slice) → sink, against Slice → sink in order",
			variant: func(ctx context.Context, data []int64) (uint64, error) {
				return unordered(ctx, flow.From(operators.IndexShuffle(sources.Slice(data))))
			},
			reference: func(ctx context.Context, data []int64) (uint64, error) {
				return unordered(ctx, flow.From(sources.Slice(data)))
			}},
		{name: "index shuffle ×2", desc: "the same with the source at Parallel(2)",
			variant: func(ctx context.Context, data []int64) (uint64, error) {
				return unordered(ctx, flow.From(operators.IndexShuffle(sources.Slice(data))).Parallel(2))
			},
			reference: func(ctx context.Context, data []int64) (uint64, error) {
				return unordered(ctx, flow.From(sources.Slice(data)).Parallel(2))
			}},
	}
}

// thirds returns three inputs reading a third of data each.
func thirds(data []int64) []*flow.Pipeline {
	n := len(data) / 3
	return []*flow.Pipeline{
		flow.From(sources.Slice(data[:n], sources.Named("a"))),
		flow.From(sources.Slice(data[n:2*n], sources.Named("b"))),
		flow.From(sources.Slice(data[2*n:], sources.Named("c"))),
	}
}

// sumSink checksums a stream chunk by chunk: order-sensitive or not.
type sumSink struct {
	ordered bool
	sum     *uint64
}

func (s sumSink) Info() flow.Info                           { return flow.Info{Name: "sum"} }
func (s sumSink) NewConsumer(flow.Env) flow.Consumer[int64] { return s }
func (s sumSink) Close(error) error                         { return nil }

func (s sumSink) Consume(_ context.Context, c flow.Chunk[int64]) error {
	*s.sum = checksum(*s.sum, c.Values, c.IDs, s.ordered)
	c.Release()
	return nil
}

// checksum folds values and their IDs into sum.
func checksum(sum uint64, vals []int64, ids flow.IDs, ordered bool) uint64 {
	for k, v := range vals {
		x := uint64(v) ^ ids.At(k).Lo
		if ordered {
			sum = sum*31 + x
		} else {
			sum += x
		}
	}
	return sum
}

func runSum(ctx context.Context, p *flow.Pipeline, ordered bool) (uint64, error) {
	var sum uint64
	err := p.To(flow.NewSink[int64](sumSink{ordered, &sum})).Run(ctx)
	return sum, err
}

func ordered(ctx context.Context, p *flow.Pipeline) (uint64, error)   { return runSum(ctx, p, true) }
func unordered(ctx context.Context, p *flow.Pipeline) (uint64, error) { return runSum(ctx, p, false) }

// handShuffle is Shuffle written by hand over the chunks Slice reads: the
// same buffer, the same stream (seed 0, epoch 0, stage position 1,
// Shuffle's purpose 1) and the same IDs, so the same order; like the
// stage, it gives its output in chunks of values and IDs, which it then
// checksums.
func handShuffle(_ context.Context, data []int64) (uint64, error) {
	type entry struct {
		v  int64
		id rowid.ID
	}
	base := rowid.FromString("slice")
	rng := pcg.Keyed(0, 0, 1, 1)
	buf := make([]entry, 0, window)
	outVals, outIDs := make([]int64, 0, 1024), make([]rowid.ID, 0, 1024)
	var sum uint64
	flush := func() {
		sum = checksum(sum, outVals, flow.ListIDs(outIDs), true)
		outVals, outIDs = outVals[:0], outIDs[:0]
	}
	give := func() {
		j, last := rng.Intn(len(buf)), len(buf)-1
		outVals, outIDs = append(outVals, buf[j].v), append(outIDs, buf[j].id)
		buf[j] = buf[last]
		buf = buf[:last]
	}
	for lo := 0; lo < len(data); lo += 1024 {
		chunk := data[lo:min(lo+1024, len(data))]
		ids := flow.OrdinalIDs(base, uint64(lo), len(chunk))
		for k, v := range chunk {
			buf = append(buf, entry{v, ids.At(k)})
			if len(buf) == window {
				give()
			}
		}
		flush()
	}
	for len(buf) > 0 {
		give()
	}
	flush()
	return sum, nil
}

// times are the wall and CPU (user + system) times of one side.
type times struct{ wall, cpu time.Duration }

// cpuTime returns the process's user + system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs f and returns its times.
func timed(f func() (uint64, error)) (uint64, times, error) {
	w, c := time.Now(), cpuTime()
	sum, err := f()
	return sum, times{time.Since(w), cpuTime() - c}, err
}

// measure returns the median times of p's two sides over rounds.
func measure(ctx context.Context, p pair, data []int64, rounds int) (v, r times, err error) {
	var vw, vc, rw, rc []time.Duration
	for i := -1; i < rounds; i++ { // round -1 warms up
		a, tv, err := timed(func() (uint64, error) { return p.variant(ctx, data) })
		if err != nil {
			return v, r, err
		}
		b, tr, err := timed(func() (uint64, error) { return p.reference(ctx, data) })
		if err != nil {
			return v, r, err
		}
		if a != b {
			return v, r, fmt.Errorf("%s: checksums differ: %x against %x", p.name, a, b)
		}
		if i >= 0 {
			vw, vc, rw, rc = append(vw, tv.wall), append(vc, tv.cpu), append(rw, tr.wall), append(rc, tr.cpu)
		}
	}
	return times{median(vw), median(vc)}, times{median(rw), median(rc)}, nil
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
