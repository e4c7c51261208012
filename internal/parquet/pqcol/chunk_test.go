package pqcol

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// TestChunkMetadataThatOtherReadersTolerate reads column chunks whose
// metadata disagree with where their pages lie in the ways real writers
// got wrong, which Arrow and DuckDB read: a size that leaves out the
// dictionary page's header (parquet-mr up to 1.2.8, PARQUET-816) or the
// whole dictionary page (older fastparquet), a dictionary page offset of
// 0, and a data page offset that points at the dictionary page. A chunk
// whose pages run further, or past the file, still fails.
func TestChunkMetadataThatOtherReadersTolerate(t *testing.T) {
	dict := []int64{11, 22, 33}
	var pages []handPage
	var want []int64
	var def []byte
	for p := range 3 {
		var idx []uint32
		pageDef := make([]byte, 40)
		for i := range pageDef {
			if i%5 != 0 {
				pageDef[i] = 1
				idx = append(idx, uint32((p+i)%3))
				want = append(want, dict[(p+i)%3])
			}
		}
		def = append(def, pageDef...)
		values := append([]byte{2}, hybridEncode(idx, 2, packed256)...)
		pages = append(pages, pageV1(40, format.RLEDictionary, nil, levelsV1Bytes(pageDef, 1, packed256), values))
	}
	pages = append([]handPage{dictionaryPage(3, plainInt64(dict))}, pages...)
	build := func(edit func(cm *format.ColumnMetaData, header, page int64)) []byte {
		return handFile(t, optionalColumn(format.Int64), 120, 120, pages, func(md *format.FileMetaData) {
			cm := &md.RowGroups[0].Columns[0].MetaData
			page := cm.DataPageOffset - cm.DictionaryPageOffset
			edit(cm, page-int64(len(pages[0].body)), page)
		})
	}
	reads := map[string]func(cm *format.ColumnMetaData, header, page int64){
		"as written":                         func(cm *format.ColumnMetaData, header, page int64) {},
		"size without the dictionary header": func(cm *format.ColumnMetaData, header, page int64) { cm.TotalCompressedSize -= header },
		"size without the dictionary page":   func(cm *format.ColumnMetaData, header, page int64) { cm.TotalCompressedSize -= page },
		"dictionary page offset 0": func(cm *format.ColumnMetaData, header, page int64) {
			cm.DataPageOffset, cm.DictionaryPageOffset = cm.DictionaryPageOffset, 0
		},
		"data page offset at the dictionary": func(cm *format.ColumnMetaData, header, page int64) { cm.DataPageOffset = cm.DictionaryPageOffset },
	}
	for name, edit := range reads {
		data := build(edit)
		c, err := readHand(t, "dict.parquet", data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(c.Int64, want) || !slices.Equal(c.DefLevels, def) {
			t.Fatalf("%s: got %v, want %v", name, head(c.Int64), head(want))
		}
		r, err := Open("dict.parquet", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, rg := range [][2]int64{{0, 1}, {39, 41}, {79, 120}, {119, 120}} {
			if err := r.ReadColumnRange(t.Context(), 0, 0, rg[0], rg[1], c); err != nil {
				t.Fatalf("%s: rows %v: %v", name, rg, err)
			}
			if !slices.Equal(c.DefLevels, def[rg[0]:rg[1]]) {
				t.Fatalf("%s: rows %v: levels %v, want %v", name, rg, c.DefLevels, def[rg[0]:rg[1]])
			}
		}
	}
	fails := map[string]func(cm *format.ColumnMetaData, header, page int64){
		"size without more than the dictionary page": func(cm *format.ColumnMetaData, header, page int64) { cm.TotalCompressedSize -= page + 1 },
		"size without a few bytes":                   func(cm *format.ColumnMetaData, header, page int64) { cm.TotalCompressedSize -= header - 1 },
	}
	for name, edit := range fails {
		_, err := readHand(t, "dict.parquet", build(edit))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `column "v"`) {
			t.Fatalf("%s: got %v, want ErrCorrupt naming the column", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
	// A last page cut short: its header declares more bytes than the
	// chunk holds, running into the footer or past the file.
	for _, cut := range []int{5, 1000} {
		short := slices.Clone(pages)
		last := &short[len(short)-1]
		last.body, last.cut = last.body[:len(last.body)-min(cut, 10)], cut
		_, err := readHand(t, "short.parquet", handFile(t, optionalColumn(format.Int64), 120, 120, short, nil))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `column "v"`) {
			t.Fatalf("a last page cut by %d bytes: got %v, want ErrCorrupt naming the column", cut, err)
		}
		t.Logf("a last page cut by %d bytes: %v", cut, err)
	}
}
