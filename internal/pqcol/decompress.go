package pqcol

import (
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
// allowed to produce more than size bytes. SNAPPY and ZSTD pages go through
// parquet-go's codecs once the length the compressed data states (a snappy
// block's, a zstd frame's content size when present) has been checked
// against size. LZ4_RAW blocks are decoded into a buffer of exactly size
// bytes (see decompressLZ4). GZIP and BROTLI streams are read
// through the streaming decoders that parquet-go's codecs wrap, up to size
// bytes, and must end there (parquet-go's GZIP codec panics on a corrupt
// header and reads any stream to its end). A zstd frame without a content
// size is decoded by parquet-go and rejected afterwards if it decoded to
// more than size bytes.
func (d *decoder) decompress(src []byte, size int) ([]byte, error) {
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
		if h.Decode(src) == nil && h.HasFCS && h.FrameContentSize > uint64(size) {
			return nil, corruptf("zstd frame decodes to %d bytes but the page header declares %d", h.FrameContentSize, size)
		}
	case format.Lz4Raw:
		return d.decompressLZ4(src, size)
	case format.Gzip, format.Brotli:
		return d.decompressStream(src, size)
	}
	// Room for one byte more than declared lets a codec see the end of its
	// input without growing the buffer.
	if cap(d.scratch) < size+1 {
		d.scratch = make([]byte, size+1)
	}
	out, err := parquet.LookupCompressionCodec(d.codec).Decode(d.scratch[:size], src)
	if err != nil {
		return nil, corruptf("decompressing %s page: %v", d.codec, err)
	}
	if len(out) != size {
		return nil, corruptf("%s page decompressed to %d bytes but its header declares %d", d.codec, len(out), size)
	}
	if cap(out) > cap(d.scratch) {
		d.scratch = out[:0]
	}
	return out, nil
}

// streamDecoder is a pooled GZIP or BROTLI decoder.
type streamDecoder interface {
	io.Reader
	Reset(io.Reader) error
}

var gzipDecoders, brotliDecoders sync.Pool

func (d *decoder) streamDecoder(r io.Reader) (streamDecoder, *sync.Pool, error) {
	pool := &gzipDecoders
	if d.codec == format.Brotli {
		pool = &brotliDecoders
	}
	if z, ok := pool.Get().(streamDecoder); ok {
		return z, pool, z.Reset(r)
	}
	if d.codec == format.Brotli {
		return brotli.NewReader(r), pool, nil
	}
	z, err := gzip.NewReader(r)
	return z, pool, err
}

// decompressStream decodes a GZIP (possibly several concatenated members)
// or BROTLI page into exactly size bytes.
func (d *decoder) decompressStream(src []byte, size int) ([]byte, error) {
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
	if n, err := io.ReadFull(z, out); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, corruptf("%s page decompressed to %d bytes but its header declares %d", d.codec, n, size)
		}
		return nil, corruptf("%s: %v", d.codec, err)
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
