package pqcol

import (
	"encoding/binary"
	"testing"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The helpers here write small hostile files by hand: one leaf column,
// pages whose stored bytes and declared sizes the test chooses, and a
// footer whose counts it chooses.

// rawPage is a page as stored: header fields other than the sizes, the
// stored bytes and the uncompressed size to declare.
type rawPage struct {
	h      format.PageHeader
	stored []byte
	size   int
}

// oneColumn describes a file of one leaf column: schema holds the elements
// under the root, the last being the leaf.
type oneColumn struct {
	schema    []format.SchemaElement
	codec     format.CompressionCodec
	numRows   int64 // the row group's
	numValues int64 // the column chunk's
	pages     []rawPage
}

func (o oneColumn) bytes(t testing.TB) []byte {
	t.Helper()
	out := []byte("PAR1")
	start, dictOff, dataOff := int64(len(out)), int64(0), int64(0)
	var raw int64
	for _, p := range o.pages {
		h := p.h
		h.CompressedPageSize, h.UncompressedPageSize = int32(len(p.stored)), int32(p.size)
		header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		if err != nil {
			t.Fatal(err)
		}
		if h.Type == format.DictionaryPage {
			dictOff = int64(len(out))
		} else if dataOff == 0 {
			dataOff = int64(len(out))
		}
		out = append(append(out, header...), p.stored...)
		raw += int64(len(header) + p.size)
	}
	leaf := o.schema[len(o.schema)-1]
	var path []string
	for _, e := range o.schema {
		path = append(path, e.Name)
	}
	cc := format.ColumnChunk{FileOffset: start, MetaData: format.ColumnMetaData{
		Type: leaf.Type.V, Encoding: []format.Encoding{format.Plain, format.RLE, format.RLEDictionary},
		PathInSchema: path, Codec: o.codec, NumValues: o.numValues,
		TotalUncompressedSize: raw, TotalCompressedSize: int64(len(out)) - start,
		DataPageOffset: dataOff, DictionaryPageOffset: dictOff,
	}}
	md := format.FileMetaData{
		Version:   1,
		Schema:    append([]format.SchemaElement{{Name: "schema", NumChildren: some[int32](1)}}, o.schema...),
		NumRows:   o.numRows,
		RowGroups: []format.RowGroup{{Columns: []format.ColumnChunk{cc}, NumRows: o.numRows, TotalByteSize: raw}},
	}
	return appendFooter(t, out, &md)
}

func requiredLeaf(name string, typ format.Type) format.SchemaElement {
	return format.SchemaElement{Name: name, Type: some(typ), RepetitionType: some(format.Required)}
}

// listOfOptionalInt32 is the three-level list l.list.element of optional
// INT32 elements: maximum definition level 3, repetition level 1.
func listOfOptionalInt32() []format.SchemaElement {
	return []format.SchemaElement{
		{Name: "l", RepetitionType: some(format.Optional), NumChildren: some[int32](1), ConvertedType: some(deprecated.List)},
		{Name: "list", RepetitionType: some(format.Repeated), NumChildren: some[int32](1)},
		{Name: "element", Type: some(format.Int32), RepetitionType: some(format.Optional)},
	}
}

// v1 returns the header of a data page v1 of n level entries.
func v1(n int, enc format.Encoding) format.PageHeader { return dataPageHeader(n, enc) }

// rleRun appends an RLE run of count copies of v, of a bit width that
// takes one byte per value.
func rleRun(dst []byte, count int, v byte) []byte {
	return append(binary.AppendUvarint(dst, uint64(count)<<1), v)
}

// prefixed returns an RLE level stream with its 4-byte length prefix, as
// data pages v1 store levels.
func prefixed(dst, runs []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(runs)))
	return append(dst, runs...)
}

// zstdZeros returns a zstd frame of n zero bytes made of RLE blocks of up
// to 128 KiB: a few bytes per block. With fcs the frame header states its
// content size (as a single segment); without, it states only a 128 KiB
// window.
func zstdZeros(n uint64, fcs bool) []byte { return zstdFrame(nil, n, fcs) }

// zstdFrame returns a zstd frame of prefix, stored as a raw block, then n
// zero bytes as above.
func zstdFrame(prefix []byte, n uint64, fcs bool) []byte {
	out := []byte{0x28, 0xb5, 0x2f, 0xfd}
	if fcs {
		out = append(out, 0xe0) // 8-byte content size, single segment
		out = binary.LittleEndian.AppendUint64(out, uint64(len(prefix))+n)
	} else {
		out = append(out, 0x00, 0x38) // no content size; window 2^(10+7)
	}
	block := func(typ, size uint32, last bool) {
		h := size<<3 | typ<<1
		if last {
			h |= 1
		}
		out = append(out, byte(h), byte(h>>8), byte(h>>16))
	}
	if len(prefix) > 0 {
		block(0, uint32(len(prefix)), n == 0)
		out = append(out, prefix...)
	}
	for left := n; left > 0; {
		size := min(left, 128<<10)
		left -= size
		block(1, uint32(size), left == 0)
		out = append(out, 0)
	}
	return out
}

// zstdFrameHeader returns the header of a frame that states a content size
// of n bytes and a window of 1 KiB, followed by one RLE block of 1 KiB.
func zstdFrameHeader(n uint64) []byte {
	out := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00}
	out = binary.LittleEndian.AppendUint64(out, n)
	h := uint32(1<<10)<<3 | 1<<1 | 1
	return append(out, byte(h), byte(h>>8), byte(h>>16), 0)
}
