package pqwrite

import (
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// Zstd is a Parquet zstd codec that always entropy-codes literals. Its
// encoders, one per goroutine that compresses at a time, are reused. The
// bytes it writes are a function of the level and the input alone.
//
// Its encoders' window is windowSize: a page is compressed on its own,
// so a window longer than the page buys nothing, and at the default
// level the library's 8 MiB window holds 16 MiB per encoder, with one
// encoder per column that a writer compresses at a time.
type Zstd struct {
	level    zstd.EncoderLevel
	adaptive bool
	encoders [zstd.SpeedBestCompression + 1]sync.Pool // per level
	dec      pqzstd.Codec
}

// windowSize is the encoders' window: four times the default page size.
const windowSize = 1 << 20

// NewZstd returns the codec at an encoder level.
func NewZstd(level zstd.EncoderLevel) *Zstd {
	return &Zstd{level: level}
}

var _ compress.Codec = (*Zstd)(nil)

// String returns "ZSTD", as parquet-go's codec does.
func (z *Zstd) String() string { return "ZSTD" }

// CompressionCodec returns format.Zstd.
func (z *Zstd) CompressionCodec() format.CompressionCodec { return format.Zstd }

// NewAdaptiveZstd returns the codec that, in a Writer, compresses each
// column at the fastest level or the default one, whichever pays on the
// column's first page (see chunkLevel). Elsewhere, through Encode, it
// compresses at the default level.
func NewAdaptiveZstd() *Zstd {
	return &Zstd{level: zstd.SpeedDefault, adaptive: true}
}

// adaptiveGain is the part of the fastest level's output, 1/adaptiveGain,
// that the default level must save on a column's first page to be used
// for the column.
const adaptiveGain = 50

// chunkLevel compresses src, the first page of a column, at the
// fastest and the default levels, and returns the level that pays, with
// src compressed at it into dst[:0]. scratch is a buffer for the other.
func (z *Zstd) chunkLevel(dst, scratch, src []byte) (zstd.EncoderLevel, []byte, []byte, error) {
	fast, err := z.encode(zstd.SpeedFastest, dst, src)
	if err != nil {
		return 0, dst, scratch, err
	}
	def, err := z.encode(zstd.SpeedDefault, scratch, src)
	if err != nil {
		return 0, fast, scratch, err
	}
	if (len(fast)-len(def))*adaptiveGain > len(fast) {
		return zstd.SpeedDefault, def, fast, nil
	}
	return zstd.SpeedFastest, fast, def, nil
}

// Encode appends the compressed src to dst[:0].
func (z *Zstd) Encode(dst, src []byte) ([]byte, error) { return z.encode(z.level, dst, src) }

// encode appends src compressed at level to dst[:0].
func (z *Zstd) encode(level zstd.EncoderLevel, dst, src []byte) ([]byte, error) {
	pool := &z.encoders[level]
	e, _ := pool.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(level),
			zstd.WithAllLitEntropyCompression(true),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
			zstd.WithWindowSize(windowSize),
		)
		if err != nil {
			return dst, err
		}
	}
	dst = e.EncodeAll(src, dst[:0])
	pool.Put(e)
	return dst, nil
}

// Decode decompresses src into dst[:0], with parquet-go's decoder.
func (z *Zstd) Decode(dst, src []byte) ([]byte, error) { return z.dec.Decode(dst, src) }
