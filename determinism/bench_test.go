package determinism_test

import (
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

func benchChunk[T any](b *testing.B, vals []T) {
	b.Helper()
	c := flow.Chunk[T]{IDs: flow.OrdinalIDs(rowid.FromString("bench"), 0, len(vals)), Values: vals}
	h := determinism.NewHasher[T]()
	b.ReportAllocs()
	for b.Loop() {
		if err := determinism.AddChunk(h, &c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(vals)), "ns/item")
}

func BenchmarkHasher(b *testing.B) {
	const n = 1024
	b.Run("int64", func(b *testing.B) { benchChunk(b, make([]int64, n)) })
	b.Run("string16", func(b *testing.B) {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = "0123456789abcdef"
		}
		benchChunk(b, vals)
	})
	b.Run("struct", func(b *testing.B) {
		type row struct {
			A int32
			B string
			C float64
			D bool
		}
		benchChunk(b, make([]row, n))
	})
	b.Run("float32x128", func(b *testing.B) {
		vals := make([][]float32, n)
		for i := range vals {
			vals[i] = make([]float32, 128)
		}
		benchChunk(b, vals)
	})
	b.Run("map4", func(b *testing.B) {
		vals := make([]map[string]int64, n)
		for i := range vals {
			vals[i] = map[string]int64{"a": 1, "b": 2, "c": 3, "d": 4}
		}
		benchChunk(b, vals)
	})
}
