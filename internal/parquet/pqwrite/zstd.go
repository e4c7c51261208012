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
	encoders sync.Pool
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

// Encode appends the compressed src to dst[:0].
func (z *Zstd) Encode(dst, src []byte) ([]byte, error) {
	e, _ := z.encoders.Get().(*zstd.Encoder)
	if e == nil {
		var err error
		e, err = zstd.NewWriter(nil,
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderLevel(z.level),
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
	z.encoders.Put(e)
	return dst, nil
}

// Decode decompresses src into dst[:0], with parquet-go's decoder.
func (z *Zstd) Decode(dst, src []byte) ([]byte, error) { return z.dec.Decode(dst, src) }
