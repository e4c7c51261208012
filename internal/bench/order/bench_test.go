package main

import (
	"context"
	"testing"
)

// Every pair's two sides agree: the hand-written shuffle draws the same
// stream as operators.Shuffle and so gives the same order.
func TestPairsAgree(t *testing.T) {
	data := make([]int64, 30000)
	for i := range data {
		data[i] = int64(i) * 7
	}
	ctx := context.Background()
	for _, p := range pairs() {
		a, err := p.variant(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.reference(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		if a != b || a == 0 {
			t.Errorf("%s: checksums %x and %x", p.name, a, b)
		}
	}
}

// Each memory pipeline reads every row.
func TestMemoryPipelines(t *testing.T) {
	for _, m := range memModes {
		if err := runChild(context.Background(), m.mode, 50000); err != nil {
			t.Errorf("%s: %v", m.mode, err)
		}
	}
}
