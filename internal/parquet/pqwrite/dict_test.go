package pqwrite

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// TestWriterDictionary: a column whose first values repeat is
// dictionary-encoded, one whose values do not stays PLAIN, and a
// dictionary that passes dictMaxBytes falls back to PLAIN pages for the
// rest of its chunk; every value reads back in parquet-go and pqcol, and
// a second row group starts a dictionary of its own.
func TestWriterDictionary(t *testing.T) {
	schema := parquet.NewSchema("t", parquet.Group{
		"a_tag":  parquet.Optional(parquet.String()),
		"b_name": parquet.String(),
		"c_grow": parquet.String(),
	})
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, PageSize(16<<10))
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	tag := func(i int) string { return fmt.Sprint("tag", i%37) }
	name := func(i int) string { return fmt.Sprint("name-", i) }
	grow := func(i int) string { // repeats first, then 20,000 distinct values of 100 bytes
		if i < dictSample {
			return fmt.Sprint("g", i%10)
		}
		return fmt.Sprintf("%06d%s", i, strings.Repeat("x", 94))
	}
	cols := w.NewColumns()
	for g := range 2 {
		for _, c := range cols {
			c.Reset()
		}
		for i := range n {
			if i%5 == 0 {
				cols[0].DefLevels = append(cols[0].DefLevels, 0)
			} else {
				cols[0].DefLevels = append(cols[0].DefLevels, 1)
				cols[0].AppendString(tag(i + g))
			}
			cols[1].AppendString(name(i))
			cols[2].AppendString(grow(i))
		}
		if g == 0 {
			if err := w.WriteRowGroup(context.Background(), cols); err != nil {
				t.Fatal(err)
			}
		}
	}
	f := writeOpen(t, w, &buf, cols)
	for g, rg := range f.Metadata().RowGroups {
		want := [][]format.Encoding{
			{format.Plain, format.RLEDictionary, format.RLE},
			{format.Plain},
			{format.Plain, format.RLEDictionary},
		}
		for c, cc := range rg.Columns {
			md := cc.MetaData
			if !slices.Equal(md.Encoding, want[c]) {
				t.Errorf("row group %d column %d: encodings %v, want %v", g, c, md.Encoding, want[c])
			}
			if dict := c != 1; dict != (md.DictionaryPageOffset > 0) || (dict && md.DictionaryPageOffset != cc.FileOffset) ||
				(dict && md.DataPageOffset <= md.DictionaryPageOffset) {
				t.Errorf("row group %d column %d: dictionary page at %d, data pages at %d, chunk at %d",
					g, c, md.DictionaryPageOffset, md.DataPageOffset, cc.FileOffset)
			}
		}
	}
	// The dictionary of c_grow stopped at dictMaxBytes: its chunks hold
	// PLAIN data pages after RLE_DICTIONARY ones.
	for g, rg := range f.Metadata().RowGroups {
		cc := rg.Columns[2]
		start := cc.MetaData.DictionaryPageOffset
		encs := pageEncodings(t, buf.Bytes()[start:start+cc.MetaData.TotalCompressedSize])
		if len(encs) < 3 || encs[0] != "dictionary" || encs[1] != format.RLEDictionary.String() || encs[len(encs)-1] != format.Plain.String() {
			t.Errorf("row group %d: c_grow's pages are %v, want a dictionary page, RLE_DICTIONARY pages, then PLAIN ones", g, encs)
		}
	}
	// parquet-go, row by row.
	rows := make([]parquet.Row, n)
	for g, rg := range f.RowGroups() {
		r := rg.Rows()
		if k, _ := r.ReadRows(rows); k != n {
			t.Fatalf("row group %d: read %d rows", g, k)
		}
		r.Close()
		for i, row := range rows {
			if i%5 == 0 != row[0].IsNull() || (i%5 != 0 && row[0].String() != tag(i+g)) ||
				row[1].String() != name(i) || row[2].String() != grow(i) {
				t.Fatalf("row group %d row %d: %v", g, i, row)
			}
		}
	}
	// pqcol, column by column, through the page index too.
	r, err := pqcol.Open("t.parquet", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for c, get := range []func(int) string{name, grow} {
		var col pqcol.Column
		if err := r.ReadColumnRange(context.Background(), 1, c+1, 7000, 9000, &col); err != nil {
			t.Fatal(err)
		}
		for i := range col.Len() {
			if got := string(col.ByteArray(i)); got != get(7000+i) {
				t.Fatalf("pqcol: column %d row %d: %q", c, 7000+i, got)
			}
		}
	}
}

// pageEncodings returns, for each page of a column chunk's bytes, the
// encoding of its values, or "dictionary" for a dictionary page.
func pageEncodings(t *testing.T, chunk []byte) []string {
	t.Helper()
	var out []string
	r := bytes.NewReader(chunk)
	dec := thrift.NewDecoder(new(thrift.CompactProtocol).NewReader(r))
	for r.Len() > 0 {
		var h format.PageHeader
		if err := dec.Decode(&h); err != nil {
			t.Fatal(err)
		}
		if h.Type == format.DictionaryPage {
			out = append(out, "dictionary")
		} else {
			dp, _ := h.DataPageHeader.Get()
			out = append(out, dp.Encoding.String())
		}
		if _, err := r.Seek(int64(h.CompressedPageSize), io.SeekCurrent); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
