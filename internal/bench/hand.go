package main

import (
	"context"
	"sync"
)

const (
	handWorkers = 2
	handBuffers = 4 * handWorkers // buffers in circulation
)

// runHand is the work as a hand-written channel pipeline: a producer
// copies data into recycled buffers, workers map and filter each buffer in
// place, and the caller's goroutine counts the kept values and hands the
// buffers back to the producer. Chunks arrive in whatever order the
// workers finish them.
func runHand(ctx context.Context, data []int64) (int64, error) {
	return handPipeline(ctx, data, mapFilter)
}

// runHandFuncs is runHand with the map and filter called through the same
// function values, with the same signatures, that rowflow's Map and Filter
// receive: the plumbing is hand-written, the per-value calls are those any
// pipeline that takes user functions must make.
func runHandFuncs(ctx context.Context, data []int64) (int64, error) {
	return handPipeline(ctx, data, func(buf []int64) []int64 {
		f, keep := userMap, userKeep
		j := 0
		for _, v := range buf {
			v, err := f(v)
			if err != nil {
				panic(err)
			}
			if keep(v) {
				buf[j] = v
				j++
			}
		}
		return buf[:j]
	})
}

// userMap and userKeep are the user functions, as rowflow's stages get
// them: function values the compiler cannot inline at the call site.
var (
	userMap  = func(v int64) (int64, error) { return triple(v), nil }
	userKeep = even
)

func handPipeline(_ context.Context, data []int64, mapFilter func([]int64) []int64) (int64, error) {
	free := make(chan []int64, handBuffers)
	for range handBuffers {
		free <- make([]int64, chunkSize)
	}
	work := make(chan []int64, handWorkers)
	done := make(chan []int64, handWorkers)

	go func() {
		defer close(work)
		for lo := 0; lo < len(data); lo += chunkSize {
			buf := <-free
			work <- buf[:copy(buf, data[lo:])]
		}
	}()
	var wg sync.WaitGroup
	for range handWorkers {
		wg.Go(func() {
			for buf := range work {
				done <- mapFilter(buf)
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()

	var n int64
	for buf := range done {
		n += int64(len(buf))
		free <- buf[:chunkSize]
	}
	return n, nil
}

// mapFilter maps buf in place and keeps the even results at its front.
func mapFilter(buf []int64) []int64 {
	j := 0
	for _, v := range buf {
		if v = triple(v); even(v) {
			buf[j] = v
			j++
		}
	}
	return buf[:j]
}
