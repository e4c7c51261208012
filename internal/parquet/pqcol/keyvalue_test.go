package pqcol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// TestKeyWithoutValue opens files whose footer key-value metadata has keys
// without a value (the format makes the value optional): they open, the
// other entries read as written, and the values read as absent.
func TestKeyWithoutValue(t *testing.T) {
	for _, entries := range []int{1, 3, 14, 15, 40} {
		var kv []format.KeyValue
		for i := range entries {
			kv = append(kv, format.KeyValue{Key: fmt.Sprintf("key-%02d", i), Value: fmt.Sprintf("value-%d", i)})
		}
		pages := []handPage{pageV1(2, format.Plain, nil, levelsV1Bytes([]byte{1, 1}, 1, packed256), plainInt64([]int64{5, 6}))}
		data := handFile(t, optionalColumn(format.Int64), 2, 2, pages, func(md *format.FileMetaData) { md.KeyValueMetadata = kv })
		// Take the value out of every other entry.
		data = editFooter(t, data, func(footer []byte) []byte {
			for i := 0; i < entries; i += 2 {
				key := []byte(kv[i].Key)
				with := append(append([]byte{0x18, byte(len(key))}, key...), 0x18, byte(len(kv[i].Value)))
				with = append(append(with, kv[i].Value...), 0)
				without := append(append([]byte{0x18, byte(len(key))}, key...), 0)
				if !bytes.Contains(footer, with) {
					t.Fatalf("entry %d is not encoded as expected", i)
				}
				footer = bytes.Replace(footer, with, without, 1)
			}
			return footer
		})
		r, err := Open("kv.parquet", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%d entries: %v", entries, err)
		}
		for i, e := range kv {
			v, ok := r.File().Lookup(e.Key)
			if i%2 == 0 && ok || i%2 == 1 && (!ok || v != e.Value) {
				t.Fatalf("%d entries: %s reads as %q, %t", entries, e.Key, v, ok)
			}
		}
		var c Column
		if err := r.ReadColumn(t.Context(), 0, 0, &c); err != nil || !slices.Equal(c.Int64, []int64{5, 6}) {
			t.Fatalf("%d entries: %v, %v", entries, c.Int64, err)
		}
	}
	// A key-value entry that is not a struct is still an error.
	data := handFile(t, optionalColumn(format.Int64), 0, 0, nil, func(md *format.FileMetaData) {
		md.KeyValueMetadata = []format.KeyValue{{Key: "k", Value: "v"}}
	})
	data = editFooter(t, data, func(footer []byte) []byte {
		return bytes.Replace(footer, []byte{0x19, 0x1c, 0x18, 1, 'k'}, []byte{0x19, 0x18, 0x03, 'x', 0x18, 1, 'k'}, 1)
	})
	if _, err := Open("kv.parquet", bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a list of strings: got %v, want ErrCorrupt", err)
	}
}

// editFooter returns the Parquet file data with its footer bytes changed by
// edit.
func editFooter(t *testing.T, data []byte, edit func([]byte) []byte) []byte {
	t.Helper()
	at := len(data) - 8 - footerLen(data)
	footer := edit(bytes.Clone(data[at : len(data)-8]))
	out := append(bytes.Clone(data[:at]), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// TestColumnChunkKeyWithoutValue: a column chunk's key-value metadata
// entry without a value (valid: the format makes it optional; the
// parquet-testing file column_chunk_key_value_metadata.parquet has one)
// does not stop the file opening, and its column reads.
func TestColumnChunkKeyWithoutValue(t *testing.T) {
	kv := []format.KeyValue{{Key: "chunk-a", Value: "x"}, {Key: "chunk-b", Value: "y"}}
	pages := []handPage{pageV1(2, format.Plain, nil, levelsV1Bytes([]byte{1, 1}, 1, packed256), plainInt64([]int64{5, 6}))}
	data := handFile(t, optionalColumn(format.Int64), 2, 2, pages, func(md *format.FileMetaData) {
		md.RowGroups[0].Columns[0].MetaData.KeyValueMetadata = kv
		md.KeyValueMetadata = []format.KeyValue{{Key: "file", Value: "z"}}
	})
	data = editFooter(t, data, func(footer []byte) []byte {
		with := []byte{0x18, 7, 'c', 'h', 'u', 'n', 'k', '-', 'a', 0x18, 1, 'x', 0}
		without := []byte{0x18, 7, 'c', 'h', 'u', 'n', 'k', '-', 'a', 0}
		if !bytes.Contains(footer, with) {
			t.Fatal("the entry is not encoded as expected")
		}
		return bytes.Replace(footer, with, without, 1)
	})
	r, err := Open("kv.parquet", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.File().Lookup("file"); !ok || v != "z" {
		t.Fatalf("the file's entry reads as %q, %t", v, ok)
	}
	var c Column
	if err := r.ReadColumn(t.Context(), 0, 0, &c); err != nil || !slices.Equal(c.Int64, []int64{5, 6}) {
		t.Fatalf("%v, %v", c.Int64, err)
	}
}
