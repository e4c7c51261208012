package text_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// ordinalFile is a text file of numbered records that crosses many blocks
// of 65,536 bytes: records of one line, records with quoted newlines (in
// CSV) and of more than a block, and blank lines, once for three blocks. starts[i] is where
// record i starts.
func ordinalFile(csv bool) (data []byte, starts []int64) {
	var b bytes.Buffer
	if csv {
		b.WriteString("n,text\n")
	}
	for i := range 12000 {
		switch {
		case i == 8000:
			b.WriteString(strings.Repeat("\n", 200_000)) // blocks without a record
		case i%37 == 5:
			b.WriteString("\n")
		case i%53 == 7:
			b.WriteString("\r\n\n")
		}
		starts = append(starts, int64(b.Len()))
		text := fmt.Sprintf("row %d", i)
		switch {
		case i == 5000:
			text = strings.Repeat("a long record ", 7000) // 98,000 bytes
		case i%11 == 3 && csv:
			text = "two\nlines"
		}
		if csv {
			fmt.Fprintf(&b, "%d,%q\n", i, text)
		} else {
			fmt.Fprintf(&b, "{\"n\":%d,\"text\":%q}\n", i, text)
		}
	}
	return b.Bytes(), starts
}

// TestOrdinalsAcrossBlocks: a record's ID is the ordinal the package
// documentation defines, whatever the byte ranges, parallelism or
// compression, in CSV and JSON Lines; the ordinals increase along the file.
func TestOrdinalsAcrossBlocks(t *testing.T) {
	for _, csv := range []bool{true, false} {
		ext := ".jsonl"
		if csv {
			ext = ".csv"
		}
		data, starts := ordinalFile(csv)
		if len(data) < 4*65536 {
			t.Fatalf("%s: %d bytes, want several blocks", ext, len(data))
		}
		want := make([]rowid.ID, len(starts))
		for i, s := range starts {
			x := text.TextOrdinal(data, s)
			if i > 0 && x <= text.TextOrdinal(data, starts[i-1]) {
				t.Fatalf("%s: record %d's ordinal %d does not increase", ext, i, x)
			}
			want[i] = rowid.Ordinal(x).Combine(rowid.FromString("f" + ext))
		}
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "f"+ext), data)
		writeFile(t, filepath.Join(dir, "z", "f"+ext+".zst"), data)
		wantZ := make([]rowid.ID, len(starts))
		for i, s := range starts {
			wantZ[i] = rowid.Ordinal(text.TextOrdinal(data, s)).Combine(rowid.FromString("f" + ext + ".zst"))
		}
		read := func(root string, par int, opts ...text.Option) []flow.Item[sources.Record] {
			if csv {
				o := make([]text.CSVOption, len(opts))
				for i := range opts {
					o[i] = opts[i]
				}
				return testutil.Items[sources.Record](t, flow.From(text.CSV[sources.Record](root, o...)).Parallel(par))
			}
			o := make([]text.JSONLOption, len(opts))
			for i := range opts {
				o[i] = opts[i]
			}
			return testutil.Items[sources.Record](t, flow.From(text.JSONL[sources.Record](root, o...)).Parallel(par))
		}
		check := func(what string, got []flow.Item[sources.Record], want []rowid.ID) {
			t.Helper()
			if len(got) != len(want) {
				t.Fatalf("%s %s: %d records, want %d", ext, what, len(got), len(want))
			}
			for i, it := range got {
				n, _ := strconv.Atoi(fmt.Sprint(it.Value.Values[0]))
				if n != i || it.ID != want[i] {
					t.Fatalf("%s %s: record %d is number %v with ID %v, want %d with %v", ext, what, i, it.Value.Values[0], it.ID, i, want[i])
				}
			}
		}
		for _, size := range []int64{997, 65536, 65537, 200_000} {
			var serial []rowid.ID
			for _, par := range []int{1, 3} {
				got := read(dir, par, text.PartitionBytes(size), sources.Files("f"+ext))
				check(fmt.Sprintf("PartitionBytes(%d) Parallel(%d)", size, par), got, want)
				ids := make([]rowid.ID, len(got))
				for i := range got {
					ids[i] = got[i].ID
				}
				if serial == nil {
					serial = ids
				} else if !slices.Equal(ids, serial) {
					t.Fatalf("%s PartitionBytes(%d): IDs differ at parallelism %d", ext, size, par)
				}
			}
		}
		check("WholeFiles", read(dir, 2, sources.WholeFiles(), sources.Files("f"+ext)), want)
		check("zstd", read(filepath.Join(dir, "z"), 2), wantZ)
	}
}

// TestLocateAcrossBlocks: an error downstream names the byte its row
// starts at, found from the row's ordinal, in every block of a file, plain
// or compressed.
func TestLocateAcrossBlocks(t *testing.T) {
	type row struct {
		N int `csv:"n" json:"n"`
	}
	for _, ext := range []string{".csv", ".jsonl"} {
		data, starts := ordinalFile(ext == ".csv")
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "f"+ext), data)
		writeFile(t, filepath.Join(dir, "z", "f"+ext+".zst"), data)
		for _, bad := range []int{0, 1, 4999, 5000, 5001, 9876, 11999} {
			for _, root := range []string{dir, filepath.Join(dir, "z")} {
				var src flow.Source[row]
				if ext == ".csv" {
					src = text.CSV[row](root, text.PartitionBytes(30_000), sources.Files("*"+ext+"*"))
				} else {
					src = text.JSONL[row](root, text.PartitionBytes(30_000), sources.Files("*"+ext+"*"))
				}
				fail := operators.Map(func(r row) (row, error) {
					if r.N == bad {
						return r, errors.New("bad row")
					}
					return r, nil
				})
				var err error
				for _, err = range flow.Items[row](t.Context(), flow.From(src).Via(fail).Parallel(2)) {
					if err != nil {
						break
					}
				}
				name := "f" + ext
				if root != dir {
					name += ".zst"
				}
				if want := fmt.Sprintf("(%s, byte %d)", name, starts[bad]); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s row %d: %v, want an error naming %s", name, bad, err, want)
				}
			}
		}
	}
}

// TestLocateAfterBOM: the first record of a file that starts with a byte
// order mark is at byte 3 in CSV, whose reader skips the mark, and at
// byte 0 in JSON Lines, whose first line holds it.
func TestLocateAfterBOM(t *testing.T) {
	type row struct {
		N int `csv:"n" json:"n"`
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "f.csv"), []byte("\ufeff1\n2\n"))
	writeFile(t, filepath.Join(dir, "f.jsonl"), []byte("\ufeff{\"n\":1}\n{\"n\":2}\n"))
	fail := operators.Map(func(r row) (row, error) {
		if r.N == 1 {
			return r, errors.New("bad row")
		}
		return r, nil
	})
	for _, c := range []struct {
		src  flow.Source[row]
		want string
	}{
		{text.CSV[row](dir, text.Header("n"), sources.Files("f.csv")), "(f.csv, byte 3)"},
		{text.JSONL[row](dir, sources.Files("f.jsonl")), "(f.jsonl, byte 0)"},
	} {
		var err error
		for _, err = range flow.Items[row](t.Context(), flow.From(c.src).Via(fail)) {
			if err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error naming %s", err, c.want)
		}
	}
}
