package main

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"syscall"
	"time"

	"github.com/rowflow/rowflow/internal/bench/mapfilter"
)

// sample is one run of a variant.
type sample struct {
	d, cpu  time.Duration // wall time, and CPU time of the whole process
	mallocs uint64
}

// result is a variant's median over the rounds.
type result struct {
	v       variant
	n       int // values it ran on
	d, cpu  time.Duration
	mallocs uint64
}

// cpuPerElem returns the median CPU nanoseconds per value.
func (r result) cpuPerElem() float64 { return float64(r.cpu.Nanoseconds()) / float64(r.n) }

// perElem returns the median nanoseconds per value.
func (r result) perElem() float64 { return float64(r.d.Nanoseconds()) / float64(r.n) }

// allocsPerElem returns the median allocations per value.
func (r result) allocsPerElem() float64 { return float64(r.mallocs) / float64(r.n) }

// measureAll warms every variant up once, runs cfg.rounds rounds, and
// returns each variant's median, in the order of [variants].
func measureAll(ctx context.Context, cfg config) ([]result, error) {
	vs := variants(cfg.part)
	if len(cfg.only) > 0 {
		vs = slices.DeleteFunc(vs, func(v variant) bool { return !slices.Contains(cfg.only, v.name) })
	}
	big := mapfilter.Data(cfg.n)
	input := func(v variant) []int64 {
		if v.small {
			return big[:cfg.streamsN]
		}
		return big
	}
	for _, v := range vs {
		if _, err := measure(ctx, v, input(v)); err != nil {
			return nil, err
		}
	}
	samples := make([][]sample, len(vs))
	for r := range cfg.rounds {
		for k := range vs {
			i := (r + k) % len(vs)
			s, err := measure(ctx, vs[i], input(vs[i]))
			if err != nil {
				return nil, err
			}
			samples[i] = append(samples[i], s)
		}
	}
	res := make([]result, len(vs))
	for i, v := range vs {
		res[i] = median(v, len(input(v)), samples[i])
	}
	return res, nil
}

// measure runs v once on data after a garbage collection and checks its
// count.
func measure(ctx context.Context, v variant, data []int64) (sample, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start, cpu0 := time.Now(), cpuTime()
	got, err := v.run(ctx, data)
	d, cpu := time.Since(start), cpuTime()-cpu0
	runtime.ReadMemStats(&after)
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", v.name, err)
	}
	if w := mapfilter.Want(len(data)); got != w {
		return sample{}, fmt.Errorf("%s: counted %d of %d values, want %d", v.name, got, len(data), w)
	}
	return sample{d: d, cpu: cpu, mallocs: after.Mallocs - before.Mallocs}, nil
}

// median returns the medians of the durations and allocation counts of
// ss, taken separately.
func median(v variant, n int, ss []sample) result {
	ds := make([]time.Duration, len(ss))
	cs := make([]time.Duration, len(ss))
	ms := make([]uint64, len(ss))
	for i, s := range ss {
		ds[i], cs[i], ms[i] = s.d, s.cpu, s.mallocs
	}
	slices.Sort(ds)
	slices.Sort(cs)
	slices.Sort(ms)
	return result{v: v, n: n, d: mid(ds), cpu: mid(cs), mallocs: mid(ms)}
}

// mid returns the middle of sorted s, or the mean of its two middle
// values.
func mid[T time.Duration | uint64](s []T) T {
	h := len(s) / 2
	if len(s)%2 == 1 {
		return s[h]
	}
	return (s[h-1] + s[h]) / 2
}

// cpuTime returns the CPU time, user and system, the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
