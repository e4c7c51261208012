package pqcol

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The helpers here build one-column Parquet files page by page, so that
// tests can write the shapes other writers emit (DuckDB's padded runs and
// 64-bit deltas, chunk metadata that disagrees with the pages) on real
// bytes.

// handColumn is the column of a hand-built file: the schema elements below
// the root, groups first and the leaf last, each group with one child.
type handColumn struct {
	schema []format.SchemaElement
}

// optionalColumn is a nullable leaf of type typ at the root.
func optionalColumn(typ format.Type, converted ...deprecated.ConvertedType) handColumn {
	e := format.SchemaElement{Name: "v", Type: some(typ), RepetitionType: some(format.Optional)}
	if len(converted) > 0 {
		e.ConvertedType = some(converted[0])
	}
	return handColumn{schema: []format.SchemaElement{e}}
}

// listColumn is an optional list of optional elements of type typ: levels
// up to repetition 1 and definition 3.
func listColumn(typ format.Type) handColumn {
	return handColumn{schema: []format.SchemaElement{
		{Name: "l", RepetitionType: some(format.Optional), NumChildren: some[int32](1), ConvertedType: some(deprecated.List)},
		{Name: "list", RepetitionType: some(format.Repeated), NumChildren: some[int32](1)},
		{Name: "element", Type: some(typ), RepetitionType: some(format.Optional)},
	}}
}

func (c handColumn) path() []string {
	var p []string
	for _, e := range c.schema {
		p = append(p, e.Name)
	}
	return p
}

// handPage is a page of a hand-built file: its header, whose sizes are
// filled in, and its (uncompressed) body.
type handPage struct {
	header format.PageHeader
	body   []byte
	cut    int // the header declares this many bytes more than the body has
}

func dictionaryPage(n int, body []byte) handPage {
	return handPage{format.PageHeader{Type: format.DictionaryPage,
		DictionaryPageHeader: some(format.DictionaryPageHeader{NumValues: int32(n), Encoding: format.Plain})}, body, 0}
}

// pageV1 is a data page v1 of n level entries; rep and def are the levels
// as stored (with their length prefixes), or nil for a column without them.
func pageV1(n int, enc format.Encoding, rep, def, values []byte) handPage {
	h := dataPageHeader(n, enc)
	return handPage{header: h, body: bytes.Join([][]byte{rep, def, values}, nil)}
}

// pageV2 is a data page v2 of n level entries in rows rows, nulls of them
// null; rep and def are the levels without length prefixes.
func pageV2(n, nulls, rows int, enc format.Encoding, rep, def, values []byte) handPage {
	return handPage{format.PageHeader{Type: format.DataPageV2, DataPageHeaderV2: some(format.DataPageHeaderV2{
		NumValues: int32(n), NumNulls: int32(nulls), NumRows: int32(rows), Encoding: enc,
		DefinitionLevelsByteLength: int32(len(def)), RepetitionLevelsByteLength: int32(len(rep)),
		IsCompressed: some(false),
	})}, bytes.Join([][]byte{rep, def, values}, nil), 0}
}

// handFile returns a Parquet file of one row group of rows rows whose
// column chunk is pages, holding values level entries. edit, if not nil,
// changes the metadata before it is written.
func handFile(t testing.TB, col handColumn, rows, values int64, pages []handPage, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	out := []byte("PAR1")
	cm := format.ColumnMetaData{
		Type: col.schema[len(col.schema)-1].Type.V, PathInSchema: col.path(),
		Codec: format.Uncompressed, NumValues: values,
	}
	for _, p := range pages {
		h := p.header
		h.UncompressedPageSize = int32(len(p.body) + p.cut)
		h.CompressedPageSize = int32(len(p.body) + p.cut)
		header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
		if err != nil {
			t.Fatal(err)
		}
		off := int64(len(out))
		switch {
		case h.Type == format.DictionaryPage:
			cm.DictionaryPageOffset = off
		case cm.DataPageOffset == 0:
			cm.DataPageOffset = off
		}
		out = append(append(out, header...), p.body...)
		cm.TotalUncompressedSize += int64(len(header) + len(p.body))
	}
	cm.TotalCompressedSize = int64(len(out)) - 4
	cm.Encoding = []format.Encoding{format.Plain, format.RLE}
	md := format.FileMetaData{
		Version:   1,
		Schema:    append([]format.SchemaElement{{Name: "schema", NumChildren: some[int32](1)}}, col.schema...),
		NumRows:   rows,
		RowGroups: []format.RowGroup{{NumRows: rows, TotalByteSize: cm.TotalUncompressedSize, Columns: []format.ColumnChunk{{FileOffset: 4, MetaData: cm}}}},
		CreatedBy: "rowflow test",
	}
	if edit != nil {
		edit(&md)
	}
	return appendFooter(t, out, &md)
}

// readHand opens a hand-built file and reads its column chunk.
func readHand(t testing.TB, name string, data []byte) (*Column, error) {
	t.Helper()
	r, err := Open(name, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var c Column
	return &c, r.ReadColumn(t.Context(), 0, 0, &c)
}

// runStyle is how hybridEncode lays out its runs.
type runStyle int

const (
	// packed256 puts every value in bit-packed runs of 256 values,
	// zero-padded, as DuckDB writes them.
	packed256 runStyle = iota
	// packed8 puts values in bit-packed runs of 8 values, except that
	// runs of 8 or more equal values become repeated runs.
	packed8
	// overclaim is packed8 with a last repeated run (of the last value)
	// that declares two billion values.
	overclaim
)

func (s runStyle) String() string { return [...]string{"packed256", "packed8", "overclaim"}[s] }

// hybridEncode writes values as an RLE/bit-packed hybrid stream of the
// given bit width.
func hybridEncode(values []uint32, width int, style runStyle) []byte {
	var out []byte
	packed := func(vals []uint32, groups int) {
		out = binary.AppendUvarint(out, uint64(groups)<<1|1)
		var w bitWriter
		for _, v := range vals {
			w.write(uint64(v), width)
		}
		out = append(out, w.bytes(groups*width)...)
	}
	repeated := func(v uint32, count uint64) {
		out = binary.AppendUvarint(out, count<<1)
		for i := range (width + 7) / 8 {
			out = append(out, byte(v>>(8*i)))
		}
	}
	if style == packed256 {
		for lo := 0; lo < len(values); lo += 256 {
			packed(values[lo:min(lo+256, len(values))], 32)
		}
		return out
	}
	for i := 0; i < len(values); {
		j := i
		for j < len(values) && values[j] == values[i] {
			j++
		}
		switch {
		case style == overclaim && j == len(values):
			repeated(values[i], 1<<31-1)
		case j-i >= 8:
			repeated(values[i], uint64(j-i))
		default:
			j = min(i+8, len(values))
			packed(values[i:j], 1)
		}
		i = j
	}
	return out
}

// levelsV1Bytes stores levels in a data page v1: a 4-byte length, then the
// hybrid stream.
func levelsV1Bytes(levels []byte, width int, style runStyle) []byte {
	enc := hybridEncode(widen(levels), width, style)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(enc))), enc...)
}

func widen(levels []byte) []uint32 {
	out := make([]uint32, len(levels))
	for i, l := range levels {
		out[i] = uint32(l)
	}
	return out
}
