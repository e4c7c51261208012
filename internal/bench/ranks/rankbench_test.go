package main

import (
	"context"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil/longtest"
)

// TestSharesAreEven: at every world from 2 to 16, over a dataset of
// uneven files (for JSON Lines some compressed, which go whole to one
// rank), the ranks read every row once together and the largest share is
// at most 1.05 times the smallest. Without the long tests' switch, JSON
// Lines is read at worlds 2, 3, 7 and 16 only.
func TestSharesAreEven(t *testing.T) {
	srcs, totals, err := datasets(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range srcs {
		worlds := allWorlds
		if name == "jsonl" && !longtest.On() {
			worlds = []int{2, 3, 7, 16}
		}
		shares, err := measure(context.Background(), src, worlds)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range shares {
			if s.ranksSum != int64(totals[name]) {
				t.Errorf("%s, world %d: the ranks read %d rows, the dataset has %d", name, s.world, s.ranksSum, totals[name])
			}
			if r := s.ratio(); r > 1.05 {
				t.Errorf("%s, world %d: shares %v, largest/smallest %.3f > 1.05", name, s.world, s.rows, r)
			}
		}
	}
}

// BenchmarkShares runs every rank of worlds 2 to 16 over each dataset;
// it reports the worst largest/smallest share of any world.
func BenchmarkShares(b *testing.B) {
	srcs, _, err := datasets(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"parquet", "jsonl"} {
		b.Run(name, func(b *testing.B) {
			worst := 0.0
			for b.Loop() {
				shares, err := measure(context.Background(), srcs[name], allWorlds)
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range shares {
					worst = max(worst, s.ratio())
				}
			}
			b.ReportMetric(worst, "max/min")
		})
	}
}
