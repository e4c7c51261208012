package pqcol

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// checkCodec reports whether pages compressed with c can be decompressed.
func checkCodec(c format.CompressionCodec) error {
	switch c {
	case format.Uncompressed, format.Snappy, format.Gzip, format.Brotli, format.Zstd, format.Lz4Raw:
		return nil
	case format.Lz4:
		return unsupportedf("compression codec LZ4 (the deprecated Hadoop LZ4 framing; parquet-go decodes only LZ4_RAW)")
	}
	return unsupportedf("compression codec %s", c)
}

// decompress returns the decompressed form of src, which the page header
// says is size bytes long. The result may alias src or d.scratch.
//
// size has already been checked against MaxPageSize, and no codec is
// allowed to produce more than size bytes, nor to allocate for more before
// it finds out. A snappy block's stated length is checked against size
// before it is decoded. ZSTD pages whose first frame states its content
// size (as most writers' do) are decoded into a buffer of size+1 bytes by
// a decoder that may not grow it (see zstdDecoders): every frame of the
// page counts, and a later frame that states no content size stops when
// the buffer is full. Pages whose first frame states none (streaming
// encoders' frames) are streamed like GZIP and BROTLI below, so that ctx
// is checked as they decode; their decoder's history grows with its
// output, up to the frame's window. LZ4_RAW blocks are decoded into a buffer of exactly size
// bytes (see decompressLZ4). GZIP and BROTLI streams are read through the
// streaming decoders that parquet-go's codecs wrap, up to size bytes, and
// must end there (parquet-go's GZIP codec panics on a corrupt header and
// reads any stream to its end); ctx is checked as they go.
func (d *decoder) decompress(ctx context.Context, src []byte, size int) ([]byte, error) {
	switch d.codec {
	case format.Uncompressed:
		return src, nil
	case format.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return nil, corruptf("snappy: %v", err)
		}
		if n != size {
			return nil, corruptf("snappy block decodes to %d bytes but the page header declares %d", n, size)
		}
	case format.Zstd:
		var h zstd.Header
		if h.Decode(src) == nil && !h.HasFCS {
			return d.decompressStream(ctx, src, size)
		}
		return d.decompressZstd(src, size)
	case format.Lz4Raw:
		return d.decompressLZ4(src, size)
	case format.Gzip, format.Brotli:
		return d.decompressStream(ctx, src, size)
	}
	if cap(d.scratch) < size {
		d.scratch = make([]byte, size)
	}
	out, err := parquet.LookupCompressionCodec(d.codec).Decode(d.scratch[:size], src)
	if err != nil {
		return nil, corruptf("decompressing %s page: %v", d.codec, err)
	}
	if len(out) != size {
		return nil, corruptf("%s page decompressed to %d bytes but its header declares %d", d.codec, len(out), size)
	}
	return out, nil
}

// zstdDecoders holds zstd decoders whose DecodeAll never writes past the
// capacity of the buffer it is given: a frame whose header states a
// larger content size fails before anything is allocated for it, and a
// frame that states none fails when the buffer is full. (parquet-go's
// codec lets DecodeAll allocate whatever a frame header asks for, up to
// 64 GiB, and checks only the first frame of a page.) The decoders run
// synchronously.
var zstdDecoders = sync.Pool{New: func() any {
	z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		panic(err) // the options are constant
	}
	return z
}}

// decompressZstd decodes the zstd frames of a page, which must decode to
// exactly size bytes, into a buffer with room for one byte more, so that a
// longer page is seen as such without decoding the rest of it.
func (d *decoder) decompressZstd(src []byte, size int) ([]byte, error) {
	if cap(d.scratch) < size+1 {
		d.scratch = make([]byte, size+1)
	}
	z := zstdDecoders.Get().(*zstd.Decoder)
	defer zstdDecoders.Put(z)
	out, err := z.DecodeAll(src, d.scratch[:0:size+1])
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded), err == nil && len(out) > size:
		return nil, corruptf("ZSTD page decompresses to more than the %d bytes its header declares", size)
	case err != nil:
		return nil, corruptf("decompressing ZSTD page: %v", err)
	case len(out) != size:
		return nil, corruptf("ZSTD page decompressed to %d bytes but its header declares %d", len(out), size)
	}
	return out, nil
}

// streamDecoder is a pooled GZIP, BROTLI or ZSTD stream decoder.
type streamDecoder interface {
	io.Reader
	Reset(io.Reader) error
}

var gzipDecoders, brotliDecoders, zstdStreams sync.Pool

func (d *decoder) streamDecoder(r io.Reader) (streamDecoder, *sync.Pool, error) {
	pool := &gzipDecoders
	switch d.codec {
	case format.Brotli:
		pool = &brotliDecoders
	case format.Zstd:
		pool = &zstdStreams
	}
	if z, ok := pool.Get().(streamDecoder); ok {
		return z, pool, z.Reset(r)
	}
	switch d.codec {
	case format.Brotli:
		return brotli.NewReader(r), pool, nil
	case format.Zstd:
		// Decoding synchronously, block by block, the decoder keeps a
		// history that grows with what is read from it, up to the window.
		z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		return z, pool, err
	}
	z, err := gzip.NewReader(r)
	return z, pool, err
}

// streamStep is how many bytes a streaming decoder produces between two
// looks at the context: a few milliseconds of work.
const streamStep = 1 << 20

// decompressStream decodes a GZIP (possibly several concatenated members),
// BROTLI or ZSTD page into exactly size bytes, checking ctx every
// streamStep bytes.
func (d *decoder) decompressStream(ctx context.Context, src []byte, size int) ([]byte, error) {
	d.src.Reset(src)
	z, pool, err := d.streamDecoder(&d.src)
	if err != nil {
		return nil, corruptf("%s: %v", d.codec, err)
	}
	defer pool.Put(z)
	if cap(d.scratch) < size {
		d.scratch = make([]byte, size)
	}
	out := d.scratch[:size]
	for n := 0; n < size; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, err := io.ReadFull(z, out[n:min(n+streamStep, size)])
		n += k
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, corruptf("%s page decompressed to %d bytes but its header declares %d", d.codec, n, size)
		} else if err != nil {
			return nil, corruptf("%s: %v", d.codec, err)
		}
	}
	var more [1]byte
	switch _, err := io.ReadFull(z, more[:]); {
	case err == nil:
		return nil, corruptf("%s page decompresses to more than the %d bytes its header declares", d.codec, size)
	case !errors.Is(err, io.EOF):
		return nil, corruptf("%s: %v", d.codec, err)
	}
	return out, nil
}

// decompressLZ4 decodes an LZ4_RAW block into exactly size bytes.
// parquet-go's LZ4_RAW codec retries a failing block with a buffer twice as
// large, with no bound: a corrupt block of a few bytes makes it allocate
// until the process runs out of memory. Decoding into a buffer of the
// declared size turns that into an error.
func (d *decoder) decompressLZ4(src []byte, size int) ([]byte, error) {
	if cap(d.scratch) < size {
		d.scratch = make([]byte, size)
	}
	out := d.scratch[:size]
	n, err := lz4.UncompressBlock(src, out)
	if err != nil {
		return nil, corruptf("LZ4_RAW block does not decode to the %d bytes its page header declares: %v", size, err)
	}
	if n != size {
		return nil, corruptf("LZ4_RAW page decompressed to %d bytes but its header declares %d", n, size)
	}
	return out, nil
}
