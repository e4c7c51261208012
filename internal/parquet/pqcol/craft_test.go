package pqcol

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// parquet-go's writer starts every page at a row boundary. Files from other
// writers (parquet-mr with data pages v1, for one) do not: a row of a
// repeated column can begin in one page and continue in the next. The
// helpers here write such files by hand, with parquet-go's encoders, codecs
// and thrift encoding, so that row counting across pages is tested on real
// bytes.

// spanRow is one row of a crafted file: a required INT64, a repeated INT32
// and a repeated, dictionary-encoded BYTE_ARRAY.
type spanRow struct {
	id    int64
	vals  []int32
	names []string
}

// craftOptions shape a crafted file.
type craftOptions struct {
	rowsPerGroup int                     // rows per row group
	pageEntries  int                     // level entries per data page, regardless of rows
	codec        format.CompressionCodec // page compression
	checksum     bool                    // write page CRCs
	corruptPage  int                     // if > 0, damage this data page (1-based) of "vals" after its CRC is computed
}

type crafter struct {
	t    testing.TB
	opts craftOptions
	out  []byte
}

func some[T any](v T) thrift.Null[T] { return thrift.Null[T]{V: v, Valid: true} }

// appendFooter appends the thrift footer md, its length and the closing
// magic bytes to a file's bytes.
func appendFooter(t testing.TB, out []byte, md *format.FileMetaData) []byte {
	t.Helper()
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), md)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// writeCrafted writes rows to path as a Parquet file shaped by o.
func writeCrafted(t testing.TB, path string, rows []spanRow, o craftOptions) {
	t.Helper()
	c := &crafter{t: t, opts: o, out: []byte("PAR1")}
	var groups []format.RowGroup
	for start := 0; start < len(rows); start += o.rowsPerGroup {
		part := rows[start:min(start+o.rowsPerGroup, len(rows))]
		g := format.RowGroup{NumRows: int64(len(part))}
		g.Columns = append(g.Columns, c.idChunk(part), c.valsChunk(part), c.namesChunk(part))
		for _, cc := range g.Columns {
			g.TotalByteSize += cc.MetaData.TotalUncompressedSize
		}
		groups = append(groups, g)
	}
	md := format.FileMetaData{
		Version: 1,
		Schema: []format.SchemaElement{
			{Name: "schema", NumChildren: some[int32](3)},
			{Name: "id", Type: some(format.Int64), RepetitionType: some(format.Required)},
			{Name: "vals", Type: some(format.Int32), RepetitionType: some(format.Repeated)},
			{Name: "names", Type: some(format.ByteArray), RepetitionType: some(format.Repeated)},
		},
		NumRows:   int64(len(rows)),
		RowGroups: groups,
	}
	c.out = appendFooter(t, c.out, &md)
	if err := os.WriteFile(path, c.out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// chunk records the pages written since start as a column chunk.
type chunk struct {
	start, dictOff, dataOff, rawSize, numValues int64
}

func (c *crafter) page(ch *chunk, h format.PageHeader, raw []byte, corrupt bool) {
	c.t.Helper()
	stored := raw
	if c.opts.codec != format.Uncompressed {
		var err error
		if stored, err = parquet.LookupCompressionCodec(c.opts.codec).Encode(nil, raw); err != nil {
			c.t.Fatal(err)
		}
	}
	h.UncompressedPageSize = int32(len(raw))
	h.CompressedPageSize = int32(len(stored))
	if c.opts.checksum {
		h.CRC = int32(crc32.ChecksumIEEE(stored))
	}
	if corrupt {
		stored = append([]byte(nil), stored...)
		stored[len(stored)/2] ^= 0x5a
	}
	header, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
	if err != nil {
		c.t.Fatal(err)
	}
	off := int64(len(c.out))
	if h.Type == format.DictionaryPage {
		ch.dictOff = off
	} else if ch.dataOff == 0 {
		ch.dataOff = off
	}
	c.out = append(c.out, header...)
	c.out = append(c.out, stored...)
	ch.rawSize += int64(len(header) + len(raw))
}

func (c *crafter) columnChunk(ch *chunk, name string, typ format.Type, encodings ...format.Encoding) format.ColumnChunk {
	return format.ColumnChunk{
		FileOffset: ch.start,
		MetaData: format.ColumnMetaData{
			Type:                  typ,
			Encoding:              encodings,
			PathInSchema:          []string{name},
			Codec:                 c.opts.codec,
			NumValues:             ch.numValues,
			TotalUncompressedSize: ch.rawSize,
			TotalCompressedSize:   int64(len(c.out)) - ch.start,
			DataPageOffset:        ch.dataOff,
			DictionaryPageOffset:  ch.dictOff,
		},
	}
}

func dataPageHeader(n int, enc format.Encoding) format.PageHeader {
	return format.PageHeader{
		Type: format.DataPage,
		DataPageHeader: some(format.DataPageHeader{
			NumValues: int32(n), Encoding: enc,
			DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE,
		}),
	}
}

func (c *crafter) idChunk(rows []spanRow) format.ColumnChunk {
	ch := &chunk{start: int64(len(c.out)), numValues: int64(len(rows))}
	for lo := 0; lo < len(rows); lo += c.opts.pageEntries {
		ids := make([]int64, 0, c.opts.pageEntries)
		for _, r := range rows[lo:min(lo+c.opts.pageEntries, len(rows))] {
			ids = append(ids, r.id)
		}
		raw, err := parquet.Plain.EncodeInt64(nil, ids)
		if err != nil {
			c.t.Fatal(err)
		}
		c.page(ch, dataPageHeader(len(ids), format.Plain), raw, false)
	}
	return c.columnChunk(ch, "id", format.Int64, format.Plain)
}

// flatten returns the levels of a repeated leaf (maximum levels 1 and 1)
// whose rows have the given lengths: an empty row is one entry with
// definition level 0.
func flatten(lengths []int) (rep, def []byte) {
	for _, n := range lengths {
		if n == 0 {
			rep, def = append(rep, 0), append(def, 0)
			continue
		}
		for j := range n {
			rep, def = append(rep, min(byte(j), 1)), append(def, 1)
		}
	}
	return rep, def
}

// repeatedPages writes data pages v1 of pageEntries level entries each;
// values(from, to) encodes values [from, to) of the chunk.
func (c *crafter) repeatedPages(ch *chunk, lengths []int, enc format.Encoding, values func(from, to int) []byte, corruptPage int) {
	rep, def := flatten(lengths)
	ch.numValues = int64(len(rep))
	v := 0
	for lo, page := 0, 1; lo < len(rep); lo, page = lo+c.opts.pageEntries, page+1 {
		hi := min(lo+c.opts.pageEntries, len(rep))
		n := countEqual(def[lo:hi], 1)
		raw := c.prefixedLevels(nil, rep[lo:hi])
		raw = c.prefixedLevels(raw, def[lo:hi])
		raw = append(raw, values(v, v+n)...)
		v += n
		c.page(ch, dataPageHeader(hi-lo, enc), raw, page == corruptPage)
	}
}

func (c *crafter) prefixedLevels(dst, levels []byte) []byte {
	enc, err := levelRLE[1].EncodeLevels(nil, levels)
	if err != nil {
		c.t.Fatal(err)
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(enc)))
	return append(dst, enc...)
}

func (c *crafter) valsChunk(rows []spanRow) format.ColumnChunk {
	ch := &chunk{start: int64(len(c.out))}
	var all []int32
	lengths := make([]int, len(rows))
	for i, r := range rows {
		all = append(all, r.vals...)
		lengths[i] = len(r.vals)
	}
	c.repeatedPages(ch, lengths, format.Plain, func(from, to int) []byte {
		raw, err := parquet.Plain.EncodeInt32(nil, all[from:to])
		if err != nil {
			c.t.Fatal(err)
		}
		return raw
	}, c.opts.corruptPage)
	return c.columnChunk(ch, "vals", format.Int32, format.Plain, format.RLE)
}

func (c *crafter) namesChunk(rows []spanRow) format.ColumnChunk {
	ch := &chunk{start: int64(len(c.out))}
	ids := map[string]int32{}
	var dict []byte
	var indexes []int32
	lengths := make([]int, len(rows))
	for i, r := range rows {
		lengths[i] = len(r.names)
		for _, s := range r.names {
			k, ok := ids[s]
			if !ok {
				k = int32(len(ids))
				ids[s] = k
				dict = binary.LittleEndian.AppendUint32(dict, uint32(len(s)))
				dict = append(dict, s...)
			}
			indexes = append(indexes, k)
		}
	}
	c.page(ch, format.PageHeader{
		Type:                 format.DictionaryPage,
		DictionaryPageHeader: some(format.DictionaryPageHeader{NumValues: int32(len(ids)), Encoding: format.Plain}),
	}, dict, false)
	c.repeatedPages(ch, lengths, format.RLEDictionary, func(from, to int) []byte {
		raw, err := dictionaryIndexes.EncodeInt32(nil, indexes[from:to])
		if err != nil {
			c.t.Fatal(err)
		}
		return raw
	}, 0)
	return c.columnChunk(ch, "names", format.ByteArray, format.Plain, format.RLE, format.RLEDictionary)
}
