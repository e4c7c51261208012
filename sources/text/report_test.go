package text_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// intRow reads one integer column, so that a long field that is not a
// number makes a long message.
type intRow struct {
	A int64 `csv:"a" json:"a"`
}

// zstdRepeat writes to path a zstd stream of head, then block n times,
// as concatenated frames: a small file of n*len(block) bytes.
func zstdRepeat(t testing.TB, path, head, block string, n int) {
	t.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll([]byte(block), nil)
	out := enc.EncodeAll([]byte(head), nil)
	for range n {
		out = append(out, frame...)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBadLineReportBounded: a report of many skipped records, some with
// long messages, lists the first 1000 within 256 KiB, each message cut to
// a KiB, counts the rest, and is the same at every split and parallelism.
func TestBadLineReportBounded(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a\n")
	long := strings.Repeat("é", 3000)
	for i := range 5000 {
		switch {
		case i%5 == 0:
			fmt.Fprintf(&b, "%d\n", i)
		case i > 3000 && i%3 == 0:
			fmt.Fprintf(&b, "%s%d\n", long, i)
		default:
			fmt.Fprintf(&b, "x%d\n", i)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var first sources.SkipReport
	for _, c := range []struct {
		size int64
		par  int
	}{{1 << 40, 1}, {997, 1}, {997, 4}, {20000, 3}} {
		var rep sources.SkipReport
		var n int64
		err := flow.From(text.CSV[intRow](dir, text.PartitionBytes(c.size), sources.SkipBad(&rep))).Parallel(c.par).To(sinks.Count[intRow](&n)).Run(t.Context())
		if err != nil || n != 1000 {
			t.Fatalf("%+v: %d rows, %v", c, n, err)
		}
		total := 0
		for _, l := range rep.Skipped {
			total += len(l.Path) + len(l.Err)
			if len(l.Err) > 1<<10+40 {
				t.Fatalf("a message of %d bytes", len(l.Err))
			}
		}
		if len(rep.Skipped) > 1000 || total > 256<<10 || int64(len(rep.Skipped))+rep.Omitted != 4000 {
			t.Fatalf("%+v: %d lines of %d bytes, %d omitted; want at most 1000 and 256 KiB, 4000 in all", c, len(rep.Skipped), total, rep.Omitted)
		}
		if c.size == 1<<40 {
			first = rep
			if len(rep.Skipped) != 1000 || rep.Skipped[999].Line != 1251 {
				t.Fatalf("%d lines listed, the last %+v; want 1000, up to line 1251", len(rep.Skipped), rep.Skipped[len(rep.Skipped)-1])
			}
			continue
		}
		if fmt.Sprint(rep) != fmt.Sprint(first) {
			t.Fatalf("%+v: a report other than the serial read's", c)
		}
	}
	// Past line 3000 a third of the messages are long: the bytes bound
	// the list before the count does.
	lines := strings.Split(b.String(), "\n")
	tail := "a\n" + strings.Join(lines[3001:], "\n")
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), []byte(tail), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep sources.SkipReport
	if err := flow.From(text.CSV[intRow](dir, text.PartitionBytes(5000), sources.SkipBad(&rep))).Parallel(3).To(sinks.Count[intRow](new(int64))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	cut := 0
	for _, l := range rep.Skipped {
		if strings.HasSuffix(l.Err, "more bytes)") {
			cut++
		}
	}
	if cut == 0 || len(rep.Skipped) >= 1000 || rep.Omitted == 0 {
		t.Fatalf("%d lines, %d cut, %d omitted: want the bytes to bound the list before the count", len(rep.Skipped), cut, rep.Omitted)
	}
}

// TestBadLineReportMemoryBounded reads, in child processes, small zstd
// files of nothing but bad records, CSV ones with long messages and JSON
// Lines ones with many, with SkipBadLines: the report holds a bounded
// part of them and the peak RSS stays far under what listing them all
// takes (some 500 MB each).
func TestBadLineReportMemoryBounded(t *testing.T) {
	longtest.Require(t) // three million bad records
	if _, err := testutil.PeakRSS(); err != nil {
		t.Skipf("peak memory cannot be measured here: %v", err)
	}
	dir := t.TempDir()
	zstdRepeat(t, filepath.Join(dir, "long.csv.zst"), "a\n", strings.Repeat(strings.Repeat("x", 2000)+"\n", 100), 1200)
	zstdRepeat(t, filepath.Join(dir, "many.jsonl.zst"), "", strings.Repeat("x\n", 50000), 60)
	for _, name := range []string{"long.csv.zst", "many.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			st, _ := os.Stat(filepath.Join(dir, name))
			got := testutil.RunChild(t, "TestHelperBadLines", filepath.Join(dir, name))
			peak, _ := strconv.ParseInt(got["peak"], 10, 64)
			t.Logf("%s (%d bytes): peak RSS %.1f MiB, %s listed, %s omitted", name, st.Size(), float64(peak)/(1<<20), got["listed"], got["omitted"])
			if got["err"] != "no error" || got["listed"] == "0" || got["omitted"] == "0" {
				t.Fatalf("child: %v", got)
			}
			testutil.CheckPeak(t, got["peak"], 150<<20)
		})
	}
}

// TestHelperBadLines is the child of TestBadLineReportMemoryBounded.
func TestHelperBadLines(t *testing.T) {
	path := testutil.ChildArg(t)
	if err := testutil.LimitAddressSpace(4 << 30); err != nil {
		t.Fatal(err)
	}
	var rep sources.SkipReport
	var n int64
	var err error
	if strings.Contains(path, ".jsonl") {
		err = flow.From(text.JSONL[sources.Record](path, sources.SkipBad(&rep))).To(sinks.Count[sources.Record](&n)).Run(t.Context())
	} else {
		err = flow.From(text.CSV[intRow](path, sources.SkipBad(&rep))).To(sinks.Count[intRow](&n)).Run(t.Context())
	}
	size := 0
	for _, l := range rep.Skipped {
		size += len(l.Err)
	}
	testutil.Report("listed", len(rep.Skipped), "omitted", rep.Omitted, "bytes", size)
	testutil.ReportRun(t, n, err)
}
