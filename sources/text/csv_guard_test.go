package text_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

type pairRow struct {
	A string `csv:"a"`
	B string `csv:"b"`
}

// TestCSVFieldFlood reads, in child processes, CSV records made of
// delimiters: 16 MiB of commas in a plain file, 300 MiB of them in a
// small zstd stream, and quoted newlines between commas, which encoding/csv
// would split into millions of fields before it checked their number. Each
// fails at the record, naming the file and line, in little memory.
func TestCSVFieldFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("reads hostile files in child processes")
	}
	if _, err := testutil.PeakRSS(); err != nil {
		t.Skipf("peak memory cannot be measured here: %v", err)
	}
	for _, c := range []struct{ name, file string }{
		{"plain", "f.csv"},
		{"zstd", "f.csv.zst"},
		{"quoted-newlines", "q.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			var w io.Writer = f
			var z *zstd.Encoder
			if c.name == "zstd" {
				if z, err = zstd.NewWriter(f); err != nil {
					t.Fatal(err)
				}
				w = z
			}
			w.Write([]byte("a,b\n1,2\n"))
			unit, n := strings.Repeat(",", 1<<20), 16
			switch c.name {
			case "zstd":
				n = 300
			case "quoted-newlines":
				unit, n = strings.Repeat("\"\n\",", 1<<18), 8
			}
			for range n {
				w.Write([]byte(unit))
			}
			if z != nil {
				z.Close()
			}
			f.Close()
			got := testutil.RunChild(t, "TestHelperCSVFieldFlood", dir)
			peak, _ := strconv.ParseInt(got["peak"], 10, 64)
			t.Logf("peak RSS %.1f MiB, %s rows: %s", float64(peak)/(1<<20), got["rows"], got["err"])
			if want := c.file + ":3 "; !strings.Contains(got["err"], want) || !strings.Contains(got["err"], "a record of more than 1026 fields") {
				t.Errorf("the error does not name %s and the bound: %s", want, got["err"])
			}
			testutil.CheckPeak(t, got["peak"], 256<<20)
		})
	}
}

// TestHelperCSVFieldFlood is the child of TestCSVFieldFlood.
func TestHelperCSVFieldFlood(t *testing.T) {
	dir := testutil.ChildArg(t)
	if err := testutil.LimitAddressSpace(8 << 30); err != nil {
		t.Fatal(err)
	}
	var n int64
	err := flow.From(text.CSV[pairRow](dir)).To(sinks.Count[pairRow](&n)).Run(context.Background())
	testutil.ReportRun(t, n, err)
}

// TestCSVFieldsUnderTheGuard: a quoted field full of delimiters is one
// field, and a record with a few fields too many is still a bad line that
// SkipBadLines skips, whichever reader (the fast path or encoding/csv)
// reads it.
func TestCSVFieldsUnderTheGuard(t *testing.T) {
	dir := t.TempDir()
	commas := strings.Repeat(",", 200_000)
	data := "a,b\n1,\"" + commas + "\"\n2,x,y,z\n3,\"multi\nline\"\n4," + strings.Repeat("w", 100_000) + ",extra\n5,e\n"
	if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bytes := range []int64{7, 1 << 20} {
		var report sources.SkipReport
		var got []string
		for v, err := range flow.Values[pairRow](t.Context(), flow.From(text.CSV[pairRow](dir, sources.SkipBad(&report), text.PartitionBytes(bytes)))) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v.A+":"+strconv.Itoa(len(v.B)))
		}
		want := []string{"1:200000", "3:10", "5:1"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("PartitionBytes(%d): rows %v, want %v", bytes, got, want)
		}
		if lines := report.Skipped; len(lines) != 2 || lines[0].Line != 3 || lines[1].Line != 6 {
			t.Errorf("PartitionBytes(%d): bad lines %+v, want lines 3 and 6", bytes, lines)
		}
	}
}

// TestCommaRefusesWhatEncodingCSVRefuses: a delimiter encoding/csv cannot
// use is an option error when the source is built, not a failure of each
// file at run time.
func TestCommaRefusesWhatEncodingCSVRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, r := range []rune{0, '"', '\r', '\n', -1, 0xFFFD} {
		err := flow.From(text.CSV[pairRow](dir, text.Comma(r))).Err()
		if err == nil || !strings.Contains(err.Error(), "not a valid delimiter") {
			t.Errorf("Comma(%q): %v", r, err)
		}
	}
	if err := flow.From(text.CSV[pairRow](dir, text.Comma(';'))).Err(); err != nil {
		t.Errorf("Comma(';'): %v", err)
	}
}
