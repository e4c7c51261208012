package text

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestSplitRecordsAtRecordStarts: following the quotes, every range starts
// at a record that encoding/csv reads, although the nominal split points
// fall inside quoted fields that hold newlines, where splitting at the
// next newline would cut a record.
func TestSplitRecordsAtRecordStarts(t *testing.T) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for i := range 2000 {
		w.Write([]string{fmt.Sprint(i), fmt.Sprintf("a\n\"b\"\r\nc %d", i), strings.Repeat("x", i%50)})
	}
	w.Flush()
	data := b.Bytes()
	var starts []int64
	r := csv.NewReader(bytes.NewReader(data))
	for {
		off := r.InputOffset()
		if _, err := r.Read(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		starts = append(starts, off)
	}
	for _, target := range []int64{1, 7, 64, 1000, 1 << 20} {
		sizes, err := splitRecords(t.Context(), bytes.NewReader(data), int64(len(data)), target, ',')
		if err != nil {
			t.Fatal(err)
		}
		naive, _ := splitRecords(t.Context(), bytes.NewReader(data), int64(len(data)), target, 0)
		at, cut := int64(0), false
		for _, n := range sizes {
			if _, ok := slices.BinarySearch(starts, at); !ok || n < 1 {
				t.Fatalf("target %d: a range starts at %d, not at a record", target, at)
			}
			at += n
		}
		for at, k := int64(0), 0; k < len(naive); at, k = at+naive[k], k+1 {
			if _, ok := slices.BinarySearch(starts, at); !ok {
				cut = true
			}
		}
		if at != int64(len(data)) || (target < 1<<20 && !cut) {
			t.Fatalf("target %d: ranges cover %d of %d bytes; naive split cuts a record: %v", target, at, len(data), cut)
		}
	}
	if sizes, _ := splitRecords(t.Context(), bytes.NewReader(nil), 0, 10, ','); sizes != nil {
		t.Fatalf("empty file: %v", sizes)
	}
}
