package shards_test

import (
	"context"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// TestCSVShardsSingleEmptyField writes CSV files of structs with one
// column, among whose values are empty ones: encoding/csv writes such a
// record as a blank line, which readers skip. Every row must be a
// record: VerifyManifest counts the manifest's rows, and the CSV source
// reads back every value, in order (a nil pointer and a pointer to ""
// read back as nil).
func TestCSVShardsSingleEmptyField(t *testing.T) {
	type str struct {
		S string `csv:"s"`
	}
	type ptr struct {
		P *string `csv:"p"`
	}
	empty, x := "", "x"
	strs := []str{{""}, {"a"}, {""}, {""}, {"b,c"}, {""}}
	ptrs := []ptr{{nil}, {&x}, {&empty}, {nil}}
	for _, compression := range []string{"none", "gzip"} {
		dir := t.TempDir()
		if err := flow.From(sources.Slice(strs)).To(shards.CSV[str](dir, shards.Compression(compression), shards.RowsPerFile(4))).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := shards.VerifyManifest(dir, 0); err != nil {
			t.Fatalf("%s: %v", compression, err)
		}
		var got []str
		for it, err := range flow.Items[str](context.Background(), flow.From(text.CSV[str](dir))) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, it.Value)
		}
		if len(got) != len(strs) {
			t.Fatalf("%s: read back %q, wrote %q", compression, got, strs)
		}
		for i := range strs {
			if got[i] != strs[i] {
				t.Fatalf("%s: read back %q, wrote %q", compression, got, strs)
			}
		}
	}
	dir := t.TempDir()
	if err := flow.From(sources.Slice(ptrs)).To(shards.CSV[ptr](dir)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := shards.VerifyManifest(dir, 0); err != nil {
		t.Fatal(err)
	}
	var got []*string
	for it, err := range flow.Items[ptr](context.Background(), flow.From(text.CSV[ptr](dir))) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it.Value.P)
	}
	if len(got) != len(ptrs) || got[0] != nil || got[1] == nil || *got[1] != "x" || got[2] != nil || got[3] != nil {
		t.Fatalf("read back %d values %v, want nil, x, nil, nil", len(got), got)
	}
}
