package lineage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// mixedIDs returns IDs of every kind a pipeline makes: rows of two files
// read in order from an offset, interleaved; a filtered run; flat-mapped
// and mixed rows; bare ordinals; random IDs.
func mixedIDs() []rowid.ID {
	var ids []rowid.ID
	a, b := rowid.NewCombiner(rowid.FromString("a.csv")), rowid.NewCombiner(rowid.FromString("dir/b.parquet"))
	for i := range uint64(3000) {
		ids = append(ids, a.Combine(rowid.Ordinal(122880+i)))
		if i%7 == 0 {
			ids = append(ids, b.Combine(rowid.Ordinal(i*3)))
		}
	}
	for i := range uint64(500) {
		id := a.Combine(rowid.Ordinal(i))
		ids = append(ids, id.Fork(), id.Fork().Next(), id.Combine(rowid.FromString("input-1")), rowid.Ordinal(i))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		ids = append(ids, rowid.ID{Lo: r.Uint64(), Hi: r.Uint64()})
	}
	ids = append(ids, rowid.ID{}, rowid.ID{Lo: ^uint64(0), Hi: ^uint64(0)})
	return ids
}

// encodeAll encodes ids in batches of 1024, as the writer does.
func encodeAll(e *Encoder, ids []rowid.ID) []Triple {
	var out, buf []Triple
	for len(ids) > 0 {
		n := min(len(ids), 1024)
		buf = e.Encode(flow.ListIDs(ids[:n]), buf)
		out = append(out, buf...)
		ids = ids[n:]
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	ids := mixedIDs()
	var e Encoder
	ts := encodeAll(&e, ids)
	if len(ts) != len(ids) {
		t.Fatalf("%d triples for %d IDs", len(ts), len(ids))
	}
	for k, id := range ids {
		if got := Join(ts[k]); got != id {
			t.Fatalf("ID %d: %v encoded as %+v decodes to %v", k, id, ts[k], got)
		}
	}
	// Any Key1 decodes to the same ID.
	for k, tr := range ts[:100] {
		k1 := uint64(k) * 0x9e3779b97f4a7c15
		if got := Join(Triple{Key1: k1, Key2: tr.Key2, Ord: tr.Ord ^ tr.Key1 ^ k1}); got != ids[k] {
			t.Fatalf("ID %d with Key1 %x: %v, want %v", k, k1, got, ids[k])
		}
	}
}

func TestSplitOfScope(t *testing.T) {
	f := rowid.FromString("data/part-0001.parquet")
	k2, x0 := Split(rowid.Ordinal(0).Combine(f))
	for _, i := range []uint64{1, 2, 1000, 1 << 40, ^uint64(0)} {
		k, x := Split(rowid.Ordinal(i).Combine(f))
		if k != k2 || x^x0 != i {
			t.Errorf("ordinal %d: k2 %x x^x0 %x, want %x and %d", i, k, x^x0, k2, i)
		}
	}
}

// TestCompact checks the form's point: rows of one scope, read in order
// from any offset, have constant keys and an Ord that steps by one.
func TestCompact(t *testing.T) {
	for _, start := range []uint64{0, 1, 122880, 1<<33 + 12345, 7<<50 - 3} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			c := rowid.NewCombiner(rowid.FromString("x/y.csv"))
			const n = 100_000
			ids := make([]rowid.ID, n)
			for i := range ids {
				ids[i] = c.Combine(rowid.Ordinal(start + uint64(i)))
			}
			var e Encoder
			ts := encodeAll(&e, ids)
			jumps, changes := 0, 0
			for k := 1; k < n; k++ {
				if ts[k].Key2 != ts[0].Key2 {
					t.Fatalf("row %d: Key2 %x, row 0 %x", k, ts[k].Key2, ts[0].Key2)
				}
				if ts[k].Key1 != ts[k-1].Key1 {
					changes++
				}
				if ts[k].Ord != ts[k-1].Ord+1 {
					jumps++
				}
			}
			// Key1 changes, and Ord jumps, only where a carry first
			// reaches a bit of k1 not yet known: a few times per bit.
			if jumps > 2*17 || changes > 17 {
				t.Errorf("%d jumps of Ord and %d changes of Key1 in %d rows", jumps, changes, n)
			}
			if start == 0 && ts[0].Ord != 0 {
				t.Errorf("from ordinal 0, first Ord is %d", ts[0].Ord)
			}
		})
	}
}

// TestCompactByteOffsets checks rows whose ordinals are the byte offsets
// of a text file's lines, as the CSV source numbers them: Ord steps by the
// lines' lengths, and Key1 is that of a few values.
func TestCompactByteOffsets(t *testing.T) {
	for _, start := range []uint64{0, 37, 1 << 30, 1<<40 + 12345} {
		t.Run(fmt.Sprint(start), func(t *testing.T) {
			c := rowid.NewCombiner(rowid.FromString("in.csv"))
			r := rand.New(rand.NewPCG(start, 9))
			const n = 100_000
			ords := make([]uint64, n)
			ids := make([]rowid.ID, n)
			o := start
			for i := range ids {
				ords[i], ids[i] = o, c.Combine(rowid.Ordinal(o))
				o += 20 + r.Uint64N(40)
			}
			var e Encoder
			ts := encodeAll(&e, ids)
			off, changes := 0, 0
			for k := 1; k < n; k++ {
				if ts[k].Key1 != ts[k-1].Key1 {
					changes++
				}
				if ts[k].Ord-ts[k-1].Ord != ords[k]-ords[k-1] {
					off++
				}
			}
			if off > 40 || changes > 20 {
				t.Errorf("%d steps of Ord of %d are not the line's length, and Key1 changes %d times", off, n, changes)
			}
		})
	}
}

// TestDerivedKeepKey1Zero checks that rows whose k2 is alone in its batch
// get Key1 0, so that the Key1 column stays constant.
func TestDerivedKeepKey1Zero(t *testing.T) {
	var ids []rowid.ID
	for i := range uint64(2048) {
		ids = append(ids, rowid.Ordinal(i).Combine(rowid.FromString("f")).Fork())
	}
	var e Encoder
	for k, tr := range encodeAll(&e, ids) {
		if tr.Key1 != 0 {
			t.Fatalf("row %d: Key1 %x, want 0", k, tr.Key1)
		}
	}
}

func benchmarkEncode(b *testing.B, ids []rowid.ID) {
	b.ReportAllocs()
	var e Encoder
	var buf []Triple
	for b.Loop() {
		e.Reset()
		for k := 0; k < len(ids); k += 1024 {
			buf = e.Encode(flow.ListIDs(ids[k:min(k+1024, len(ids))]), buf)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/row")
}

// BenchmarkEncodeSource encodes a source's rows, in order.
func BenchmarkEncodeSource(b *testing.B) {
	c := rowid.NewCombiner(rowid.FromString("data/part-0.parquet"))
	ids := make([]rowid.ID, 64*1024)
	for i := range ids {
		ids[i] = c.Combine(rowid.Ordinal(uint64(i) + 5000))
	}
	benchmarkEncode(b, ids)
}

// BenchmarkEncodeDerived encodes rows whose IDs share no scope.
func BenchmarkEncodeDerived(b *testing.B) {
	ids := make([]rowid.ID, 64*1024)
	for i := range ids {
		ids[i] = rowid.Ordinal(uint64(i)).Combine(rowid.FromString("f")).Fork()
	}
	benchmarkEncode(b, ids)
}
