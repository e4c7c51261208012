package text_test

import (
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// TestCSVBlankLines: blank lines, before the header or between records,
// change neither the records nor their row IDs (the byte offset where
// each record's own line starts), whatever the partition size, whole or
// compressed; an empty file, whole or compressed, has no records. A
// UTF-8 byte order mark before the header is not part of the first
// column's name; the offsets count it.
func TestCSVBlankLines(t *testing.T) {
	for _, c := range []struct {
		name, text string
		starts     []int64 // the records' offsets
	}{
		{"between", "a,b\n\n1,2\n\n\n3,4\n", []int64{5, 11}},
		{"crlf", "a,b\r\n\r\n1,2\r\n\r\n3,4", []int64{7, 14}},
		{"before-header", "\n\na,b\n1,2\n\n3,4\n", []int64{6, 11}},
		{"quoted", "a,b\n\n\"1\n\n\",2\n\n3,4\n", []int64{5, 14}},
		{"empty", "", nil},
		{"only-blank", "\n\n\n", nil},
		{"bom", "\ufeffa,b\n1,2\n\n3,4\n", []int64{7, 12}},
		{"bom-quoted", "\ufeff\"a\",b\n1,2\n3,4\n", []int64{9, 13}},
		{"bom-only", "\ufeff", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			zdir := t.TempDir()
			f, err := os.Create(filepath.Join(zdir, "f.csv.gz"))
			if err != nil {
				t.Fatal(err)
			}
			zw := gzip.NewWriter(f)
			zw.Write([]byte(c.text))
			zw.Close()
			f.Close()
			var want []rowid.ID
			for _, b := range c.starts {
				want = append(want, rowid.Ordinal(text.TextOrdinal([]byte(c.text), b)).Combine(rowid.FromString("f.csv")))
			}
			wantZ := make([]rowid.ID, len(c.starts))
			for i, b := range c.starts {
				wantZ[i] = rowid.Ordinal(text.TextOrdinal([]byte(c.text), b)).Combine(rowid.FromString("f.csv.gz"))
			}
			check := func(what string, src flow.Source[pairRow], want []rowid.ID) {
				t.Helper()
				var ids []rowid.ID
				var vals []string
				for it, err := range flow.Items[pairRow](t.Context(), flow.From(src).Parallel(2)) {
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					ids, vals = append(ids, it.ID), append(vals, it.Value.A+"|"+it.Value.B)
				}
				if !slices.Equal(ids, want) || len(vals) != len(c.starts) || (len(vals) > 0 && vals[len(vals)-1] != "3|4") {
					t.Errorf("%s: %v with IDs %v, want %d records with IDs %v", what, vals, ids, len(c.starts), want)
				}
			}
			for n := int64(1); n <= int64(len(c.text))+1; n++ {
				check(fmt.Sprintf("PartitionBytes(%d)", n), text.CSV[pairRow](dir, text.PartitionBytes(n)), want)
			}
			check("WholeFiles", text.CSV[pairRow](dir, sources.WholeFiles()), want)
			check("gzip", text.CSV[pairRow](zdir), wantZ)
		})
	}
}

// TestCSVTruncatedStreamNamesTheFile: a compressed CSV file cut short fails
// with an error that names it, as a truncated JSON Lines file does.
func TestCSVTruncatedStreamNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.csv.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	fmt.Fprintf(zw, "a,b\n")
	for i := range 2000 {
		fmt.Fprintf(zw, "%d,%d\n", i, i*i)
	}
	zw.Close()
	f.Close()
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []int{len(whole) / 2, 12} {
		if err := os.WriteFile(path, whole[:keep], 0o644); err != nil {
			t.Fatal(err)
		}
		var le *text.LineError
		for _, err := range flow.Values[pairRow](t.Context(), flow.From(text.CSV[pairRow](dir))) {
			if err != nil {
				if !errors.As(err, &le) || le.Path != "cut.csv.gz" {
					t.Errorf("%d bytes kept: %v, want a LineError of cut.csv.gz", keep, err)
				}
				break
			}
		}
		if le == nil {
			t.Errorf("%d bytes kept: no error", keep)
		}
	}
}

// TestBOMBeforeRecords: a byte order mark at the start of a CSV file read
// with Header (no header row) or of a JSON Lines file is not part of the
// first record, whatever the partition size, whole or compressed.
func TestBOMBeforeRecords(t *testing.T) {
	type line struct {
		A string `json:"a"`
	}
	csvRead := func(dir string, opt text.Option) (string, error) {
		var got string
		for it, err := range flow.Items[pairRow](t.Context(), flow.From(text.CSV[pairRow](dir, text.Header("a", "b"), opt)).Parallel(2)) {
			if err != nil {
				return got, err
			}
			got += it.Value.A + "|" + it.Value.B + ";"
		}
		return got, nil
	}
	jsonlRead := func(dir string, opt text.Option) (string, error) {
		var got string
		for it, err := range flow.Items[line](t.Context(), flow.From(text.JSONL[line](dir, opt)).Parallel(2)) {
			if err != nil {
				return got, err
			}
			got += it.Value.A + ";"
		}
		return got, nil
	}
	for _, c := range []struct {
		ext, text string
		read      func(dir string, opt text.Option) (string, error)
	}{
		{"csv", "\ufeff1,2\n3,4\n", csvRead},
		{"jsonl", "\ufeff{\"a\":\"1|2\"}\n{\"a\":\"3|4\"}\n", jsonlRead},
	} {
		for _, z := range []bool{false, true} {
			dir := t.TempDir()
			name := filepath.Join(dir, "f."+c.ext)
			data := []byte(c.text)
			if z {
				name += ".gz"
				f, err := os.Create(name)
				if err != nil {
					t.Fatal(err)
				}
				zw := gzip.NewWriter(f)
				zw.Write(data)
				zw.Close()
				f.Close()
			} else if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for n := int64(1); n <= int64(len(data))+1; n++ {
				got, err := c.read(dir, text.PartitionBytes(n))
				if err != nil || got != "1|2;3|4;" {
					t.Errorf("%s, gzip %t, PartitionBytes(%d): %q, %v; want \"1|2;3|4;\"", c.ext, z, n, got, err)
				}
			}
		}
	}
}

// TestTextFileChangedDuringTheRun: a CSV or JSON Lines file rewritten
// after the run planned its byte ranges fails the parts read after the
// rewrite, naming the file, rather than reading ranges that no longer
// start at records. The rewrite happens while the run's first partition
// passes through a stage, before the serial source opens the second.
func TestTextFileChangedDuringTheRun(t *testing.T) {
	type row struct {
		A string `csv:"a" json:"a"`
	}
	for _, c := range []struct {
		ext, before, after string
		src                func(dir string) flow.Source[row]
	}{
		{"csv", "a\n" + strings.Repeat("xxxxxxx\n", 50), "a\n" + strings.Repeat("yy\n", 70),
			func(dir string) flow.Source[row] { return text.CSV[row](dir, text.PartitionBytes(100)) }},
		{"jsonl", strings.Repeat("{\"a\":\"xxxxxxx\"}\n", 50), strings.Repeat("{\"a\":\"y\"}\n", 70),
			func(dir string) flow.Source[row] { return text.JSONL[row](dir, text.PartitionBytes(100)) }},
	} {
		dir := t.TempDir()
		name := filepath.Join(dir, "f."+c.ext)
		if err := os.WriteFile(name, []byte(c.before), 0o644); err != nil {
			t.Fatal(err)
		}
		rewrite := sync.OnceValue(func() error { return os.WriteFile(name, []byte(c.after), 0o644) })
		var got int
		p := flow.From(c.src(dir)).Via(operators.Map(func(r row) (row, error) {
			if r.A != "xxxxxxx" {
				return r, fmt.Errorf("read %q, a row written after the rewrite", r.A)
			}
			got++
			return r, rewrite()
		}))
		var n int64
		err := p.To(sinks.Count[row](&n)).Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), "f."+c.ext+" changed during the run") || got == 0 || got >= 50 {
			t.Errorf("%s: %d rows, then %v; want some rows of the first version, then an error naming the file", c.ext, got, err)
		}
	}
}
