package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"
)

// sample is one run of a variant: its wall-clock time and the CPU time
// the process used meanwhile (0 where not measured).
type sample struct {
	wall, cpu time.Duration
}

// result is a variant's medians over the rounds, of wall-clock and of CPU
// time, taken separately.
type result struct {
	v    variant
	rows int64
	d    time.Duration
	cpu  time.Duration
}

// rowsPerSec returns the variant's median throughput.
func (r result) rowsPerSec() float64 { return float64(r.rows) / r.d.Seconds() }

// cpuPerRow returns the variant's median CPU time per row in nanoseconds.
func (r result) cpuPerRow() float64 { return float64(r.cpu.Nanoseconds()) / float64(r.rows) }

// measureAll warms every variant of vs up once, runs rounds rounds, each
// running every variant once and starting from a different variant, and
// returns each variant's median, in the order of vs. Every run must
// handle want rows. Scratch directories are made under tmp.
func measureAll(ctx context.Context, vs []variant, rounds int, want int64, tmp string) ([]result, error) {
	for _, v := range vs {
		if _, err := measure(ctx, v, want, tmp); err != nil {
			return nil, err
		}
	}
	walls, cpus := make([][]time.Duration, len(vs)), make([][]time.Duration, len(vs))
	for r := range rounds {
		for k := range vs {
			i := (r + k) % len(vs)
			s, err := measure(ctx, vs[i], want, tmp)
			if err != nil {
				return nil, err
			}
			walls[i], cpus[i] = append(walls[i], s.wall), append(cpus[i], s.cpu)
		}
	}
	res := make([]result, len(vs))
	for i, v := range vs {
		res[i] = result{v: v, rows: want, d: median(walls[i]), cpu: median(cpus[i])}
	}
	return res, nil
}

// measure runs v once in a fresh scratch directory, after a garbage
// collection, and checks that it handled want rows. The directory is made
// before and removed after the timed run.
func measure(ctx context.Context, v variant, want int64, tmp string) (sample, error) {
	scratch, err := os.MkdirTemp(tmp, "run-")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(scratch)
	runtime.GC()
	cpu, start := cpuTime(), time.Now()
	got, err := v.run(ctx, scratch)
	s := sample{wall: time.Since(start), cpu: cpuTime() - cpu}
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", v.name, err)
	}
	if got != want {
		return sample{}, fmt.Errorf("%s: %d rows, want %d", v.name, got, want)
	}
	return s, nil
}

// median returns the median of ds, or the mean of its two middle values.
func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	h := len(s) / 2
	if len(s)%2 == 1 {
		return s[h]
	}
	return (s[h-1] + s[h]) / 2
}
