package pqcol

import (
	"fmt"
	"hash/crc32"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

const (
	// firstHeaderRead is how many bytes are first offered to the page header
	// decoder; headers are usually a few dozen bytes.
	firstHeaderRead = 4 << 10
	// maxHeaderSize bounds a page header (they can carry min/max statistics).
	maxHeaderSize = 16 << 20
)

// page is one page of a column chunk: its header and its stored bytes.
type page struct {
	header format.PageHeader
	offset int64  // file offset of the header
	start  int64  // file offset of the body
	end    int64  // file offset just past the body
	body   []byte // the CompressedPageSize bytes after the header, once read
	read   bool   // body holds them (see decoder.pageBody)
	ahead  bool   // reads of the page's bytes read ahead of them
}

// readPage decodes the page header at file offset off and returns the
// page. It checks the sizes the header declares against the chunk and
// against the configured limit. The body is read (and its CRC verified)
// when a read first needs it, by pageBody: a read that takes the page
// decompressed from shared, or passes over it, does not. Unless ahead is
// set, the header is read without the bytes after it, for a page that
// shared holds.
func (d *decoder) readPage(off int64, ahead bool) (*page, error) {
	p := &d.page
	p.offset = off
	n, err := d.decodeHeader(off, ahead)
	if err != nil {
		return nil, err
	}
	h := &p.header
	if err := validateHeader(h); err != nil {
		return nil, err
	}
	bodyStart := off + int64(n)
	if int64(h.CompressedPageSize) > d.win.end-bodyStart {
		if d.win.end > d.end {
			return nil, corruptf("page of %d bytes at offset %d overruns the column chunk, which ends at %d (%d with the dictionary page, which some writers leave out of the chunk's size)",
				h.CompressedPageSize, bodyStart, d.end, d.win.end)
		}
		return nil, corruptf("page of %d bytes at offset %d overruns the column chunk, which ends at %d", h.CompressedPageSize, bodyStart, d.end)
	}
	if err := d.checkLimit(h); err != nil {
		return nil, err
	}
	p.start, p.end = bodyStart, bodyStart+int64(h.CompressedPageSize)
	p.body, p.read, p.ahead = nil, false, ahead
	return p, nil
}

// pageBody returns the body of p, the page readPage returned last, reading
// it and verifying its CRC, if it has one, on the first call.
func (d *decoder) pageBody(p *page) ([]byte, error) {
	if p.read {
		return p.body, nil
	}
	h := &p.header
	body, err := d.win.read(p.start, int(h.CompressedPageSize), p.ahead)
	if err != nil {
		return nil, err
	}
	if d.cfg.verifyChecksum && h.CRC != 0 {
		if got := crc32.ChecksumIEEE(body); got != uint32(h.CRC) {
			return nil, fmt.Errorf("%w: header says 0x%08X, page bytes give 0x%08X", ErrChecksum, uint32(h.CRC), got)
		}
	}
	p.body, p.read = body, true
	return body, nil
}

// pagePrefix returns the first n bytes of the body of p, the page
// readPage returned last, such as the levels of a page v2, which precede
// its values: only those bytes, unless the page's CRC is to be verified,
// which takes the whole body. The bytes are valid until the next call of
// pagePrefix or pageBody.
func (d *decoder) pagePrefix(p *page, n int) ([]byte, error) {
	if p.read || d.cfg.verifyChecksum && p.header.CRC != 0 {
		body, err := d.pageBody(p)
		if err != nil {
			return nil, err
		}
		return body[:n], nil
	}
	return d.win.read(p.start, n, p.ahead)
}

// decodeHeader decodes the thrift page header at off into d.page.header and
// returns its length. It offers the decoder a growing prefix of the rest of
// the chunk until the header fits, reading ahead of it if ahead is set.
func (d *decoder) decodeHeader(off int64, ahead bool) (int, error) {
	if d.hdrReader == nil {
		d.hdrReader = d.proto.NewReaderFromBytes(nil)
		d.hdrDecoder = thrift.NewDecoder(d.hdrReader)
	}
	rest := d.win.end - off
	want := min(rest, firstHeaderRead)
	for {
		b, err := d.win.read(off, int(want), ahead)
		if err != nil {
			return 0, err
		}
		d.page.header = format.PageHeader{}
		d.hdrReader.ResetBytes(b)
		err = d.hdrDecoder.Decode(&d.page.header)
		if err == nil {
			return d.hdrReader.BytesRead(), nil
		}
		if want == rest || want >= maxHeaderSize {
			return 0, corruptf("decoding page header: %v", err)
		}
		want = min(rest, want*8, maxHeaderSize)
	}
}

// validateHeader rejects headers whose counts and sizes cannot be right.
func validateHeader(h *format.PageHeader) error {
	if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 {
		return corruptf("page header declares negative sizes (compressed %d, uncompressed %d)", h.CompressedPageSize, h.UncompressedPageSize)
	}
	switch h.Type {
	case format.DataPage:
		if !h.DataPageHeader.Valid {
			return corruptf("DATA_PAGE without a data page header")
		}
		if n := h.DataPageHeader.V.NumValues; n < 0 {
			return corruptf("data page declares %d values", n)
		}
	case format.DataPageV2:
		if !h.DataPageHeaderV2.Valid {
			return corruptf("DATA_PAGE_V2 without a data page v2 header")
		}
		v := &h.DataPageHeaderV2.V
		switch {
		case v.NumValues < 0, v.NumNulls < 0, v.NumRows < 0, v.NumNulls > v.NumValues, v.NumRows > v.NumValues:
			return corruptf("data page v2 declares %d values, %d nulls, %d rows", v.NumValues, v.NumNulls, v.NumRows)
		case v.RepetitionLevelsByteLength < 0, v.DefinitionLevelsByteLength < 0,
			int64(v.RepetitionLevelsByteLength)+int64(v.DefinitionLevelsByteLength) > int64(h.CompressedPageSize),
			int64(v.RepetitionLevelsByteLength)+int64(v.DefinitionLevelsByteLength) > int64(h.UncompressedPageSize):
			return corruptf("data page v2 level lengths (%d, %d) do not fit the page (%d bytes stored, %d decoded)",
				v.RepetitionLevelsByteLength, v.DefinitionLevelsByteLength, h.CompressedPageSize, h.UncompressedPageSize)
		}
	case format.DictionaryPage:
		if !h.DictionaryPageHeader.Valid {
			return corruptf("DICTIONARY_PAGE without a dictionary page header")
		}
		if n := h.DictionaryPageHeader.V.NumValues; n < 0 {
			return corruptf("dictionary page declares %d values", n)
		}
	case format.IndexPage:
	default:
		return corruptf("unknown page type %d", int(h.Type))
	}
	return nil
}

// checkLimit applies the MaxPageSize limit to what the header declares: the
// stored size, the decompressed size, and the memory that decoding the
// declared number of values would take (a page of a million nulls can be a
// few bytes long).
func (d *decoder) checkLimit(h *format.PageHeader) error {
	limit := d.cfg.maxPageSize
	if int64(h.UncompressedPageSize) > limit || int64(h.CompressedPageSize) > limit {
		return fmt.Errorf("%w: header declares %d bytes decompressed (%d stored); the limit is %d bytes (see pqcol.MaxPageSize)",
			ErrPageTooLarge, h.UncompressedPageSize, h.CompressedPageSize, limit)
	}
	var n int64
	perValue := int64(d.valueFootprint())
	switch h.Type {
	case format.DataPage:
		n = int64(h.DataPageHeader.V.NumValues)
		perValue += int64(d.levelKinds())
	case format.DataPageV2:
		n = int64(h.DataPageHeaderV2.V.NumValues)
		perValue += int64(d.levelKinds())
	case format.DictionaryPage:
		n = int64(h.DictionaryPageHeader.V.NumValues)
	}
	if n*perValue > limit {
		return fmt.Errorf("%w: header declares %d values, which would decode to about %d bytes; the limit is %d bytes (see pqcol.MaxPageSize)",
			ErrPageTooLarge, n, n*perValue, limit)
	}
	return nil
}

// valueFootprint is the memory one decoded value takes beyond its bytes in
// the page: its slot in a typed slice, an offset, or a dictionary index.
func (d *decoder) valueFootprint() int {
	switch d.leaf.Kind {
	case parquet.Boolean:
		return 1
	case parquet.Int32, parquet.Float, parquet.ByteArray:
		return 4
	case parquet.Int64, parquet.Double:
		return 8
	case parquet.Int96:
		return 12
	case parquet.FixedLenByteArray:
		return max(d.leaf.TypeLength, 4)
	}
	return 8
}

func (d *decoder) levelKinds() int {
	n := 0
	if d.leaf.MaxDefinitionLevel > 0 {
		n++
	}
	if d.leaf.MaxRepetitionLevel > 0 {
		n++
	}
	return n
}
