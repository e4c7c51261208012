package pqwrite

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/klauspost/compress/zstd"

	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// chunk is one encoded column chunk: its bytes, with offsets relative to
// its start, until the Writer places it in the file.
type chunk struct {
	dict     bool // data starts with a dictionary page
	data     []byte
	meta     format.ColumnMetaData // DataPageOffset relative to the chunk
	colIndex format.ColumnIndex
	offIndex format.OffsetIndex // page offsets relative to the chunk
}

// chunkEncoder encodes the column chunks of one leaf, reusing its buffers
// from one row group to the next. It is used by one goroutine at a time.
type chunkEncoder struct {
	leaf     *Leaf
	codec    compress.Codec // nil: UNCOMPRESSED
	pageSize int
	proto    thrift.CompactProtocol
	raw      []byte            // the page being built, uncompressed
	levels   []byte            // RLE scratch
	packed   []byte            // compressed scratch
	other    []byte            // an adaptive Zstd's first page at the level not chosen
	level    zstd.EncoderLevel // an adaptive Zstd's level for the column; 0 until its first page
	data     []byte            // the chunk being built
	tmp      []byte            // the chunk, moved to put its dictionary page first
	dict     dictEncoder
	delta    deltaChoice     // for an integer column of the file
	values   format.Encoding // the chunk's values' encoding, but for dictionary pages
	encs     uint64          // the encodings of the chunk's pages, as bits 1<<format.Encoding
}

// page is a data page's span: level entries [e0, e1), values [v0, v1),
// starting at row firstRow of the chunk.
type page struct {
	e0, e1, v0, v1 int
	firstRow       int64
}

// encode encodes c, a checked Column of e.leaf, into a column chunk. The
// chunk's data aliases e's buffer, valid until the next call.
func (e *chunkEncoder) encode(c *Column) (*chunk, error) {
	l := e.leaf
	e.data = e.data[:0]
	e.dict.reset(c, l)
	var err error
	if e.values, err = e.delta.encoding(c, l); err != nil {
		return nil, err
	}
	e.encs = 0
	ch := &chunk{}
	var all bounds
	nulls := int64(0)
	var uncompressed int64
	for p := range e.pages(c) {
		offset := int64(len(e.data))
		b := boundsOf(c, l, p.v0, p.v1)
		pageNulls := int64(p.e1-p.e0) - int64(p.v1-p.v0)
		n, err := e.writePage(c, p, b, pageNulls)
		if err != nil {
			return nil, err
		}
		uncompressed += n
		all.merge(b, l)
		nulls += pageNulls
		ch.offIndex.PageLocations = append(ch.offIndex.PageLocations, format.PageLocation{
			Offset: offset, CompressedPageSize: int32(int64(len(e.data)) - offset), FirstRowIndex: p.firstRow})
		addPage(&ch.colIndex, l, b, pageNulls)
	}
	ch.colIndex.BoundaryOrder = boundaryOrder(&ch.colIndex, l)
	dataStart := int64(0)
	if e.dict.used {
		// The dictionary page is complete once the data pages are: it is
		// written after them, and moved to the chunk's front.
		start := len(e.data)
		n, err := e.dict.appendPage(e)
		if err != nil {
			return nil, err
		}
		uncompressed += n
		e.tmp = append(append(e.tmp[:0], e.data[start:]...), e.data[:start]...)
		e.data, e.tmp = e.tmp, e.data
		dataStart = int64(len(e.data) - start)
		for j := range ch.offIndex.PageLocations {
			ch.offIndex.PageLocations[j].Offset += dataStart
		}
		ch.dict = true
		e.encs |= 1 << format.Plain
	}
	ch.data = e.data
	ch.meta = format.ColumnMetaData{
		Type:                  format.Type(l.Kind),
		Encoding:              e.encodings(),
		PathInSchema:          l.Path,
		Codec:                 e.codecID(),
		NumValues:             int64(c.numEntries(l)),
		TotalUncompressedSize: uncompressed,
		TotalCompressedSize:   int64(len(e.data)),
		Statistics:            format.Statistics{NullCount: nulls},
		DataPageOffset:        dataStart,
	}
	if all.ok {
		ch.meta.Statistics.MinValue, ch.meta.Statistics.MaxValue = all.min, all.max
	}
	return ch, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// encodings lists the encodings the chunk's pages use.
func (e *chunkEncoder) encodings() []format.Encoding {
	var out []format.Encoding
	for _, enc := range []format.Encoding{format.Plain, format.DeltaBinaryPacked, format.RLEDictionary} {
		if e.encs&(1<<enc) != 0 {
			out = append(out, enc)
		}
	}
	if e.leaf.MaxDefinitionLevel > 0 || e.leaf.MaxRepetitionLevel > 0 {
		out = append(out, format.RLE)
	}
	if len(out) == 0 {
		out = append(out, e.leaf.Encoding) // a chunk of no pages
	}
	return out
}

func (e *chunkEncoder) codecID() format.CompressionCodec {
	if e.codec == nil {
		return format.Uncompressed
	}
	return e.codec.CompressionCodec()
}

// pages cuts c into data pages of about e.pageSize bytes, each starting
// at a row.
func (e *chunkEncoder) pages(c *Column) func(yield func(page) bool) {
	return func(yield func(page) bool) {
		l := e.leaf
		n := c.numEntries(l)
		levelBits := bits.Len(uint(l.MaxDefinitionLevel)) + bits.Len(uint(l.MaxRepetitionLevel))
		p := page{}
		size, levels := 0, 0 // value bytes and level bits in the page
		for i := 0; i < n; i++ {
			startsRow := l.MaxRepetitionLevel == 0 || c.RepLevels[i] == 0
			if startsRow && i > p.e0 && size+levels/8 >= e.pageSize {
				if !yield(p) {
					return
				}
				p = page{e0: i, v0: p.v1, v1: p.v1, firstRow: p.firstRow + p.rows(c, l)}
				size, levels = 0, 0
			}
			p.e1 = i + 1
			if l.MaxDefinitionLevel == 0 || int(c.DefLevels[i]) == l.MaxDefinitionLevel {
				size += plainSize(c, l, p.v1)
				p.v1++
			}
			levels += levelBits // as bit-packed: an upper bound of the RLE
		}
		if n > 0 {
			yield(p)
		}
	}
}

// rows returns the number of rows that page p holds.
func (p *page) rows(c *Column, l *Leaf) int64 {
	if l.MaxRepetitionLevel == 0 {
		return int64(p.e1 - p.e0)
	}
	r := int64(0)
	for _, v := range c.RepLevels[p.e0:p.e1] {
		if v == 0 {
			r++
		}
	}
	return r
}

// writePage appends data page p of c, header and body, to e.data, and
// returns its size uncompressed, header included.
func (e *chunkEncoder) writePage(c *Column, p page, b bounds, nulls int64) (int64, error) {
	l := e.leaf
	raw := e.raw[:0]
	var err error
	if l.MaxRepetitionLevel > 0 {
		if raw, err = e.appendLevels(raw, c.RepLevels[p.e0:p.e1], l.MaxRepetitionLevel); err != nil {
			return 0, err
		}
	}
	if l.MaxDefinitionLevel > 0 {
		if raw, err = e.appendLevels(raw, c.DefLevels[p.e0:p.e1], l.MaxDefinitionLevel); err != nil {
			return 0, err
		}
	}
	enc := e.values
	switch {
	case e.dict.use(p.v0, p.v1):
		enc = format.RLEDictionary
		if raw, err = e.dict.appendIndexes(raw, c, p.v0, p.v1); err != nil {
			return 0, err
		}
	case enc == format.DeltaBinaryPacked:
		if raw, err = appendDelta(raw, c, l.Kind, p.v0, p.v1); err != nil {
			return 0, err
		}
	default:
		enc = format.Plain
		raw = appendPlain(raw, c, l, p.v0, p.v1)
	}
	e.raw = raw
	body, err := e.compress(raw)
	if err != nil {
		return 0, err
	}
	stats := format.Statistics{NullCount: nulls}
	if b.ok {
		stats.MinValue, stats.MaxValue = b.min, b.max
	}
	h := format.PageHeader{
		Type:                 format.DataPage,
		UncompressedPageSize: int32(len(raw)),
		CompressedPageSize:   int32(len(body)),
		DataPageHeader: thrift.New(format.DataPageHeader{
			NumValues:               int32(p.e1 - p.e0),
			Encoding:                enc,
			DefinitionLevelEncoding: format.RLE,
			RepetitionLevelEncoding: format.RLE,
			Statistics:              stats,
		}),
	}
	e.encs |= 1 << enc
	return e.appendPage(&h, body, len(raw))
}

// appendPage appends a page, its header h and its body, to e.data, and
// returns its size uncompressed (raw bytes of body), header included.
func (e *chunkEncoder) appendPage(h *format.PageHeader, body []byte, raw int) (int64, error) {
	header, err := thrift.Marshal(&e.proto, h)
	if err != nil {
		return 0, fmt.Errorf("encoding a page header: %w", err)
	}
	e.data = append(e.data, header...)
	e.data = append(e.data, body...)
	return int64(len(header) + raw), nil
}

// compress returns raw, a page's bytes, compressed with e's codec: in
// e.packed, or raw itself without a codec.
func (e *chunkEncoder) compress(raw []byte) ([]byte, error) {
	if len(raw) > math.MaxInt32 {
		return nil, fmt.Errorf("a page of %d bytes, more than a page holds", len(raw))
	}
	var err error
	body := raw
	z, _ := e.codec.(*Zstd)
	switch {
	case z != nil && z.adaptive && e.level == 0:
		if e.level, e.packed, e.other, err = z.chunkLevel(e.packed, e.other, raw); err != nil {
			return nil, fmt.Errorf("compressing a page: %w", err)
		}
		body = e.packed
	case z != nil && z.adaptive:
		if e.packed, err = z.encode(e.level, e.packed[:0], raw); err != nil {
			return nil, fmt.Errorf("compressing a page: %w", err)
		}
		body = e.packed
	case e.codec != nil:
		if e.packed, err = e.codec.Encode(e.packed[:0], raw); err != nil {
			return nil, fmt.Errorf("compressing a page: %w", err)
		}
		body = e.packed
	}
	return body, nil
}

// appendLevels appends levels in the RLE/bit-packed hybrid, behind their
// length in 4 bytes, as data pages v1 have them.
func (e *chunkEncoder) appendLevels(dst, levels []byte, maxLevel int) ([]byte, error) {
	enc := rle.Encoding{BitWidth: bits.Len(uint(maxLevel))}
	var err error
	if e.levels, err = enc.EncodeLevels(e.levels[:0], levels); err != nil {
		return dst, fmt.Errorf("encoding levels: %w", err)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(e.levels)))
	return append(dst, e.levels...), nil
}
