package main

import (
	"context"

	"github.com/rowflow/rowflow/internal/bench/mapfilter"
)

// runHandFuncs is the hand-written channel pipeline (mapfilter.Hand) with
// the map and filter called through the same function values, with the
// same signatures, that rowflow's Map and Filter receive: the plumbing is
// hand-written, the per-value calls are those any pipeline that takes
// user functions must make.
func runHandFuncs(ctx context.Context, data []int64) (int64, error) {
	return mapfilter.HandPipeline(ctx, data, func(buf []int64) []int64 {
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
	userMap  = func(v int64) (int64, error) { return mapfilter.Triple(v), nil }
	userKeep = mapfilter.Even
)
