package pqwrite

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
)

// adaptiveFile writes two row groups of a column of names made of a few
// words (where zstd's default level pays) and a column of random
// integers (where it does not) with codec, and returns the file's bytes.
func adaptiveFile(t *testing.T, codec *Zstd, concurrency int) []byte {
	t.Helper()
	schema := parquet.NewSchema("t", parquet.Group{
		"name": parquet.String(),
		"num":  parquet.Int(64),
	})
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, Codec(codec), Concurrency(concurrency), PageSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor"}
	rng := rand.New(rand.NewPCG(7, 8))
	cols := w.NewColumns()
	for range 2 {
		for _, c := range cols {
			c.Reset()
		}
		for range 30000 {
			cols[0].AppendString(fmt.Sprintf("%s_%s%d", words[rng.IntN(8)], words[rng.IntN(8)], rng.IntN(1000)))
			cols[1].Int64 = append(cols[1].Int64, rng.Int64N(1<<40))
		}
		if err := w.WriteRowGroup(t.Context(), cols); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chunkSizes returns the compressed size of each column chunk of a file.
func chunkSizes(t *testing.T, b []byte) []int64 {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, rg := range f.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			out = append(out, cc.MetaData.TotalCompressedSize)
		}
	}
	return out
}

// TestAdaptiveZstdChoosesPerColumn: the adaptive codec compresses the
// names' chunks as the default level does and the integers' as the
// fastest level does, in every row group, byte for byte the same whatever
// the concurrency, and the file reads back.
func TestAdaptiveZstdChoosesPerColumn(t *testing.T) {
	got := adaptiveFile(t, NewAdaptiveZstd(), 1)
	def := chunkSizes(t, adaptiveFile(t, NewZstd(zstd.SpeedDefault), 1))
	fast := chunkSizes(t, adaptiveFile(t, NewZstd(zstd.SpeedFastest), 1))
	sizes := chunkSizes(t, got)
	for i, n := range sizes {
		want, level := fast[i], "fastest"
		if i%2 == 0 { // name
			want, level = def[i], "default"
		}
		if n != want {
			t.Errorf("chunk %d: %d bytes; at the %s level %d (default %d, fastest %d)", i, n, level, want, def[i], fast[i])
		}
	}
	if def[0]*50 > fast[0]*49 || fast[1]*100 > def[1]*101 {
		t.Errorf("the data does not tell the levels apart: names %d / %d, integers %d / %d bytes at default / fastest",
			def[0], fast[0], def[1], fast[1])
	}
	if again := adaptiveFile(t, NewAdaptiveZstd(), 4); !bytes.Equal(again, got) {
		t.Error("the bytes differ at concurrency 4")
	}
	f, err := parquet.OpenFile(bytes.NewReader(got), int64(len(got)))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 60000 {
		t.Fatalf("%d rows", f.NumRows())
	}
	rows := make([]parquet.Row, 100)
	r := f.RowGroups()[1].Rows()
	defer r.Close()
	if n, _ := r.ReadRows(rows); n != len(rows) || len(rows[99][0].ByteArray()) < 8 {
		t.Fatalf("read %d rows back, the last %v", n, rows[99])
	}
}
