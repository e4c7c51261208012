package pqwrite

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// randomInts returns n little-endian INT32s below 100,000, from a seeded
// generator: a page without repeats, whose high bytes are nearly constant.
func randomInts(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(rng.IntN(100_000)))
	}
	return b
}

// TestZstdEntropyCodesLiterals compresses a page of random integers at
// three levels: each entropy-codes it to less than 80% of its size (at
// the better level too, whose literals the option set explicitly must
// not turn off), and it decodes back, with Zstd's Decode and parquet-go's.
// (TestRecordShardsZstdLiterals in sinks/shards has the page that
// parquet-go's codec stored raw.)
func TestZstdEntropyCodesLiterals(t *testing.T) {
	src := randomInts(64 << 10)
	for _, level := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression} {
		z := NewZstd(level)
		got, err := z.Encode(nil, src)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > len(src)*8/10 {
			t.Errorf("%v: %d bytes compressed to %d, want at most 80%%", level, len(src), len(got))
		}
		for _, dec := range []interface {
			Decode(dst, src []byte) ([]byte, error)
		}{z, &pqzstd.Codec{}} {
			back, err := dec.Decode(nil, got)
			if err != nil || !bytes.Equal(back, src) {
				t.Fatalf("%v: decoded %d bytes (%v), want the %d bytes compressed", level, len(back), err, len(src))
			}
		}
	}
}

// TestZstdSameBytes compresses the same pages from several goroutines at
// once, with encoders reused: every page compresses to the same bytes as
// on its own.
func TestZstdSameBytes(t *testing.T) {
	z := NewZstd(zstd.SpeedDefault)
	pages := [][]byte{randomInts(1000), randomInts(30000), bytes.Repeat([]byte("rowflow "), 5000), nil}
	want := make([][]byte, len(pages))
	for i, p := range pages {
		var err error
		if want[i], err = NewZstd(zstd.SpeedDefault).Encode(nil, p); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 4 {
		wg.Go(func() {
			var dst []byte
			for k := range 20 {
				i := (g + k) % len(pages)
				var err error
				dst, err = z.Encode(dst, pages[i])
				if err != nil || !bytes.Equal(dst, want[i]) {
					errs <- "a page compressed to other bytes"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
