package shards_test

import (
	"context"
	"strings"
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

// TestTextShardsSameNameTwice: a struct with two fields of one column
// name is an error when the sink is built: of a field tagged with the
// name of another, encoding/json writes only the tagged one (of two with
// the same tag, which go vet reports, neither: every row was "{}"), and
// the CSV source refuses a header that names a column twice. A struct embedded without a tag, whose fields encoding/json
// writes, is no such name, and fields named apart are written and read
// back.
func TestTextShardsSameNameTwice(t *testing.T) {
	type both struct {
		A int `csv:"x"`
		B int `csv:"x"`
	}
	type tagged struct {
		A int `json:"B" csv:"B"`
		B int
	}
	dir := t.TempDir()
	for name, p := range map[string]*flow.Pipeline{
		"csv both":     flow.From(sources.Slice([]both{{1, 2}})).To(shards.CSV[both](dir)),
		"jsonl tagged": flow.From(sources.Slice([]tagged{{1, 2}})).To(shards.JSONL[tagged](dir)),
		"csv tagged":   flow.From(sources.Slice([]tagged{{1, 2}})).To(shards.CSV[tagged](dir)),
	} {
		if err := p.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "fields A and B have the same name") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("the runs wrote %q", got)
	}

	type Inner struct {
		In int `json:"in"`
	}
	type embeds struct {
		Inner
		Out int `json:"Inner"`
	}
	dir = t.TempDir()
	rows := []embeds{{Inner{1}, 2}, {Inner{3}, 4}}
	if err := flow.From(sources.Slice(rows)).To(shards.JSONL[embeds](dir)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []embeds
	for it, err := range flow.Items[embeds](context.Background(), flow.From(text.JSONL[embeds](dir))) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, it.Value)
	}
	if len(got) != 2 || got[0] != rows[0] || got[1] != rows[1] {
		t.Fatalf("read back %+v, wrote %+v", got, rows)
	}
}
