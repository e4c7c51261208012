package rowid

import (
	"strconv"
	"strings"
	"testing"
)

func BenchmarkNext(b *testing.B) {
	b.ReportAllocs()
	id := ID{Lo: 1, Hi: 2}
	for b.Loop() {
		id = id.Next()
	}
	sinkID = id
}

func BenchmarkFork(b *testing.B) {
	b.ReportAllocs()
	id := ID{Lo: 1, Hi: 2}
	for b.Loop() {
		id = id.Fork()
	}
	sinkID = id
}

func BenchmarkCombine(b *testing.B) {
	b.ReportAllocs()
	id, other := ID{Lo: 1, Hi: 2}, ID{Lo: 3, Hi: 4}
	for b.Loop() {
		id = id.Combine(other)
	}
	sinkID = id
}

func BenchmarkCombiner(b *testing.B) {
	b.ReportAllocs()
	c := NewCombiner(ID{Lo: 3, Hi: 4})
	id := ID{Lo: 1, Hi: 2}
	for b.Loop() {
		id = c.Combine(id)
	}
	sinkID = id
}

// BenchmarkOrdinals measures a source's per-row cost under rule 1.
func BenchmarkOrdinals(b *testing.B) {
	b.ReportAllocs()
	c := NewCombiner(FromString("data/part-0000.parquet"))
	var acc ID
	var i uint64
	for b.Loop() {
		id := c.Combine(Ordinal(i))
		acc.Lo ^= id.Lo
		acc.Hi ^= id.Hi
		i++
	}
	sinkID = acc
}

func BenchmarkFromString(b *testing.B) {
	for _, n := range []int{8, 32, 256} {
		s := strings.Repeat("x", n)
		b.Run("len="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				sinkID = FromString(s)
			}
		})
	}
}

func BenchmarkString(b *testing.B) {
	b.ReportAllocs()
	id := ID{Lo: 0x0123456789abcdef, Hi: 0xfedcba9876543210}
	for b.Loop() {
		sinkString = id.String()
	}
}

func BenchmarkAppendText(b *testing.B) {
	b.ReportAllocs()
	id := ID{Lo: 0x0123456789abcdef, Hi: 0xfedcba9876543210}
	buf := make([]byte, 0, 32)
	for b.Loop() {
		buf, _ = id.AppendText(buf[:0])
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	s := "fedcba98765432100123456789abcdef"
	for b.Loop() {
		sinkID, _ = Parse(s)
	}
}

var (
	sinkID     ID
	sinkString string
)
