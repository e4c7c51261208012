package main

import (
	"context"
	"fmt"
	"slices"
)

// memRuns is how many children measure each dataset; the median counts.
const memRuns = 3

func run(ctx context.Context, rows, rounds, memRows int) error {
	data := make([]int64, rows)
	for i := range data {
		data[i] = int64(i) * 7
	}
	fmt.Printf("speed: %d rows of int64, median of %d rounds\n\n", rows, rounds)
	fmt.Printf("| %-17s | %8s | %8s | %10s | %9s | %s\n", "variant", "ns/row", "ref", "wall ratio", "cpu ratio", "what")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, p := range pairs() {
		v, r, err := measure(ctx, p, data, rounds)
		if err != nil {
			return err
		}
		perRow := func(t times) float64 { return float64(t.wall.Nanoseconds()) / float64(rows) }
		fmt.Printf("| %-17s | %8.1f | %8.1f | %9.2f× | %8.2f× | %s\n", p.name, perRow(v), perRow(r),
			r.wall.Seconds()/v.wall.Seconds(), r.cpu.Seconds()/v.cpu.Seconds(), p.desc)
	}
	fmt.Printf("\nmemory: peak RSS (VmHWM) of a child process over n = %d and 4n rows of 64 bytes, median of %d children\n\n", memRows, memRuns)
	fmt.Printf("| %-8s | %10s | %10s | %6s | %s\n", "pipeline", "n MiB", "4n MiB", "ratio", "what")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, m := range memModes {
		var small, large []int64
		for range memRuns {
			a, err := peak(m.mode, memRows)
			if err != nil {
				return err
			}
			b, err := peak(m.mode, 4*memRows)
			if err != nil {
				return err
			}
			small, large = append(small, a), append(large, b)
		}
		slices.Sort(small)
		slices.Sort(large)
		a, b := small[memRuns/2], large[memRuns/2]
		fmt.Printf("| %-8s | %10.1f | %10.1f | %5.3f | %s\n", m.mode, float64(a)/1024, float64(b)/1024, float64(b)/float64(a), m.desc)
	}
	return nil
}
