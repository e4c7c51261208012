package parquet_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// TestErrorMessages checks whole error messages: only the package where an
// error starts adds its prefix, and the file is named once.
func TestErrorMessages(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "data", "x.parquet")
	testutil.WriteParquet(t, path, makeRows(0, 500), 100)
	count := func(src flow.Source[Row]) error {
		return flow.From(src).To(sinks.Count[Row](new(int64))).Run(context.Background())
	}
	type Unsigned struct {
		ID uint64 `parquet:"id"`
	}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"row filter column", count(parquet.Read[Row](root, parquet.RowFilter(sources.Eq("nope", 1)))),
			`flow: stage "parquet": pqfilter: ` + path + ` has no column "nope" (columns: id, small, score, text, tags.list.element, opt, label)`},
		{"row filter literal", count(parquet.Read[Row](root, parquet.RowFilter(sources.Gt("text", 1)))),
			`flow: stage "parquet": pqfilter: ` + path + `: column "text" (BYTE_ARRAY STRING): cannot be compared with the integer 1`},
		{"where column", count(parquet.Read[Row](root, sources.Where(sources.Eq("lang", "en")))),
			`flow: stage "parquet": dataset: filter lang = 'en' names unknown partition column "lang" (partition columns: [])`},
		{"field type", flow.From(parquet.Read[Unsigned](root)).To(sinks.Count[Unsigned](new(int64))).Run(context.Background()),
			`flow: stage "parquet": assemble: ` + path + `: column "id" (INT64 INT(64,true)) into field ID (uint64): uint64 does not hold every value of the column`},
		{"records column", flow.From(parquet.Read[sources.Record](root, parquet.Columns("nope"))).To(sinks.Count[sources.Record](new(int64))).Run(context.Background()),
			`flow: stage "parquet": sources: ` + path + ` has no column "nope" (columns: id, small, score, text, tags.list.element, opt, label)`},
	}
	for _, c := range cases {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, c.err, c.want)
		}
	}

	// A corrupt page: pqcol names the file, row group, column and page.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 200; i < 2000; i++ {
		b[i] ^= 0x55
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	err = count(parquet.Read[Row](root))
	want := `flow: stage "parquet", partition 0: pqcol: ` + path + `: row group 0: column "id": page 0 at offset 4: row 0: corrupt data: page checksum mismatch: `
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "x.parquet") != 1 {
		t.Errorf("corrupt page:\n got %v\nwant %s…, naming the file once", err, want)
	}
	// A truncated file.
	if err := os.WriteFile(path, b[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	err = count(parquet.Read[Row](root))
	want = `flow: stage "parquet": pqcol: ` + path + `: corrupt data: the file does not end with the Parquet magic bytes`
	if err == nil || err.Error() != want {
		t.Errorf("truncated file:\n got %v\nwant %s", err, want)
	}
}
