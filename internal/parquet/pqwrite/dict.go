package pqwrite

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// Dictionary encoding, for BYTE_ARRAY columns whose values repeat. A
// Writer decides, per column of a file, from the column's first values:
// a column is dictionary-encoded when its first dictSample values hold
// at most one in dictRepeats distinct ones (tags, categories, countries),
// and PLAIN otherwise (names, identifiers, text), where a dictionary would
// add its lookups and a page of nearly every value. A dictionary-encoded
// chunk starts with its dictionary page (the distinct values, PLAIN, in
// the order first seen), and its data pages hold RLE/bit-packed indexes,
// until the dictionary takes dictMaxBytes: the chunk's later pages are
// PLAIN, as parquet-mr and parquet-go fall back.
const (
	dictSample   = 4096
	dictRepeats  = 4
	dictMaxBytes = 1 << 20
)

// dictEncoder is a chunkEncoder's dictionary.
type dictEncoder struct {
	mode int8 // for the file's column: 0 undecided, 1 dictionary, -1 PLAIN
	// The chunk's dictionary: its values as BYTE_ARRAY values are held in
	// a Column, and their indexes by value.
	vals    Column
	ids     map[string]int32
	idx     []int32
	full    bool // the dictionary has reached dictMaxBytes
	used    bool // a page of the chunk holds indexes
	indexes rle.DictionaryEncoding
}

// reset starts the chunk of c, a Column of leaf l, deciding, at the
// file's first chunk, whether the column is dictionary-encoded.
func (d *dictEncoder) reset(c *Column, l *Leaf) {
	d.vals.Reset()
	clear(d.ids)
	d.full, d.used = false, false
	if d.mode != 0 {
		return
	}
	if l.Kind != parquet.ByteArray || l.Encoding != format.Plain {
		d.mode = -1
		return
	}
	n := min(c.numValues(l), dictSample)
	switch {
	case n == 0:
		return // no values yet: the next chunk decides
	case n < dictSample/4:
		d.mode = -1 // too few to tell: PLAIN
		return
	}
	d.mode = -1
	seen := make(map[string]struct{}, n/dictRepeats+1)
	for i := range n {
		seen[string(byteValue(c, l, i))] = struct{}{}
		if len(seen)*dictRepeats > n {
			return
		}
	}
	d.mode = 1
}

// use reports whether the values [v0, v1) of a page are written as
// indexes into the dictionary.
func (d *dictEncoder) use(v0, v1 int) bool { return d.mode == 1 && !d.full && v1 > v0 }

// appendIndexes adds the values [v0, v1) of c, a BYTE_ARRAY column, to the
// dictionary and appends their indexes, encoded, to dst.
func (d *dictEncoder) appendIndexes(dst []byte, c *Column, v0, v1 int) ([]byte, error) {
	if d.ids == nil {
		d.ids = make(map[string]int32)
	}
	d.idx = d.idx[:0]
	for i := v0; i < v1; i++ {
		v := c.Bytes[c.Offsets[i]:c.Offsets[i+1]]
		id, ok := d.ids[string(v)]
		if !ok {
			id = int32(len(d.ids))
			d.ids[string(v)] = id
			d.vals.AppendBytes(v)
		}
		d.idx = append(d.idx, id)
	}
	d.used = true
	d.full = len(d.vals.Bytes) >= dictMaxBytes
	n := len(dst)
	enc, err := d.indexes.EncodeInt32(dst[n:], d.idx)
	if err != nil {
		return dst, fmt.Errorf("encoding dictionary indexes: %w", err)
	}
	return append(dst, enc...), nil
}

// appendPage appends the dictionary page of the chunk to e.data and
// returns its size uncompressed, header included.
func (d *dictEncoder) appendPage(e *chunkEncoder) (int64, error) {
	n := d.vals.numValues(&Leaf{Kind: parquet.ByteArray})
	raw := appendPlain(e.raw[:0], &d.vals, &Leaf{Kind: parquet.ByteArray}, 0, n)
	e.raw = raw
	body, err := e.compress(raw)
	if err != nil {
		return 0, err
	}
	h := format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(raw)),
		CompressedPageSize:   int32(len(body)),
		DictionaryPageHeader: thrift.New(format.DictionaryPageHeader{NumValues: int32(n), Encoding: format.Plain}),
	}
	return e.appendPage(&h, body, len(raw))
}
