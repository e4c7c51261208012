package text_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// skipTranscript reads the text file at path (CSV, or JSON Lines if its
// name says so) as records with sources.SkipBad, split into ranges of size
// bytes and read at parallelism par, and returns all a reader sees: each
// row's ID and values, in order, then the bad-line report; or the error
// of a run that fails.
func skipTranscript(ctx context.Context, path string, size int64, par int) string {
	var rep sources.SkipReport
	src := damagedRecords(path, size, &rep)
	var b strings.Builder
	for it, e := range flow.Items[sources.Record](ctx, flow.From(src).Parallel(par)) {
		if e != nil {
			return fmt.Sprintf("err %v\n", e) // the rows before it depend on the schedule
		}
		b.WriteString(recordText(it) + "\n")
	}
	for _, l := range rep.Skipped {
		fmt.Fprintf(&b, "bad %s:%d @%d: %s\n", l.Path, l.Line, l.Offset, l.Err)
	}
	fmt.Fprintf(&b, "omitted %d\n", rep.Omitted)
	return b.String()
}

// recordText is a record's ID, names and values, as the transcripts
// compare them.
func recordText(it flow.Item[sources.Record]) string {
	return fmt.Sprintf("%v %q %q", it.ID, it.Value.Names, it.Value.Values)
}

// damagedRecords is the records source of the damaged file at path,
// skipping bad lines into rep.
func damagedRecords(path string, size int64, rep *sources.SkipReport) flow.Source[sources.Record] {
	if strings.Contains(filepath.Base(path), ".jsonl") {
		return text.JSONL[sources.Record](path, text.PartitionBytes(size), sources.SkipBad(rep))
	}
	return text.CSV[sources.Record](path, text.PartitionBytes(size), sources.SkipBad(rep))
}

// checkResumeDamaged reads the damaged file at path split at size on par
// workers up to a checkpoint after its k-th row (k from 1 to its rows,
// drawn from seed), and resumes from the checkpoint on one: the rows
// after it must be those after row k of the whole file read serially.
func checkResumeDamaged(t *testing.T, path string, size int64, par int, seed uint64) {
	t.Helper()
	var all []string
	for it, err := range flow.Items[sources.Record](t.Context(), flow.From(damagedRecords(path, 1<<40, new(sources.SkipReport)))) {
		if err != nil {
			return // a file that fails has no rows to resume after
		}
		all = append(all, recordText(it))
	}
	if len(all) == 0 {
		return
	}
	k := 1 + int(seed%uint64(len(all)))
	p := flow.From(damagedRecords(path, size, new(sources.SkipReport))).Parallel(par)
	ck, err := testutil.CheckpointAfter[sources.Record](t.Context(), p, k)
	if err != nil {
		t.Fatalf("PartitionBytes(%d) Parallel(%d), checkpoint after row %d: %v", size, par, k, err)
	}
	var rest []string
	for it, err := range flow.Items[sources.Record](t.Context(), flow.From(damagedRecords(path, size, new(sources.SkipReport))).Resume(ck)) {
		if err != nil {
			t.Fatalf("PartitionBytes(%d), resumed after row %d: %v", size, k, err)
		}
		rest = append(rest, recordText(it))
	}
	if strings.Join(rest, "\n") != strings.Join(all[k:], "\n") {
		t.Fatalf("PartitionBytes(%d) Parallel(%d), resumed after row %d of %d:\n%s\nwant:\n%s",
			size, par, k, len(all), strings.Join(rest, "\n"), strings.Join(all[k:], "\n"))
	}
}

// checkSplitEqualsSerial reads data as the file name in a new directory,
// whole and then split at every size in sizes, and fails t where a split
// read differs from the whole one.
func checkSplitEqualsSerial(t *testing.T, name string, data []byte, sizes []int64, par int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	serial := skipTranscript(t.Context(), path, 1<<40, 1)
	for _, size := range sizes {
		if got := skipTranscript(t.Context(), path, size, par); got != serial {
			t.Fatalf("%q\nPartitionBytes(%d) Parallel(%d) reads\n%s\nthe whole file reads\n%s", data, size, par, got, serial)
		}
	}
}

// TestCSVBareQuoteKeepsBoundaries: a bare quote in an unquoted field,
// a bad line, does not move the record starts after it: a split at any
// byte reads what the whole file reads, so the multi-line record after
// the damage is neither lost nor cut into a row made from inside its
// quoted field. Quote parity from the file's start took "4,y" inside the
// quoted field for a record of its own.
func TestCSVBareQuoteKeepsBoundaries(t *testing.T) {
	data := []byte("a,b\n1,x\n2,b\"ad\n3,\"multi\n4,y\n5,z\"\n6,w\n7,\"q\"x\n8,\"\"\"\"\n9,v\n")
	sizes := make([]int64, len(data))
	for i := range sizes {
		sizes[i] = int64(i + 1)
	}
	checkSplitEqualsSerial(t, "bare.csv", data, sizes, 3)
}

// TestTextFileTruncatedWhileRead: a file truncated while a partition
// reads it fails that partition when it finishes, naming the file: its
// size and time were checked only when the partition opened it, and the
// run gave the rows before the cut with no error. The cut falls at a
// record start, so that no record is damaged. The file is one partition
// of 300,000 rows, and the run's first row, passing a stage, truncates it
// to half: the source reads at most its buffers ahead, far less.
func TestTextFileTruncatedWhileRead(t *testing.T) {
	type row struct {
		A string `csv:"a" json:"a"`
	}
	const rows = 300_000
	for _, c := range []struct {
		name, head, line string
		src              func(dir string) flow.Source[row]
	}{
		{"f.csv", "a\n", "%06d\n", func(dir string) flow.Source[row] {
			return text.CSV[row](dir, text.PartitionBytes(1<<30), sources.ChunkSize(100))
		}},
		{"f.jsonl", "", "{\"a\":\"%06d\"}\n", func(dir string) flow.Source[row] {
			return text.JSONL[row](dir, text.PartitionBytes(1<<30), sources.ChunkSize(100))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.name)
			var b strings.Builder
			b.WriteString(c.head)
			for i := range rows {
				fmt.Fprintf(&b, c.line, i)
			}
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			cut := int64(len(c.head) + rows/2*len(fmt.Sprintf(c.line, 0)))
			truncate := sync.OnceValue(func() error { return os.Truncate(path, cut) })
			var n int64
			err := flow.From(c.src(dir)).Via(operators.Map(func(r row) (row, error) { return r, truncate() })).
				To(sinks.Count[row](&n)).Run(t.Context())
			if err == nil || !strings.Contains(err.Error(), c.name+" changed during the run") {
				t.Fatalf("%d of %d rows, then %v; want an error naming the file", n, rows, err)
			}
		})
	}
}

// TestTextCancelledAmongBlankAndBadLines: a run reading a small zstd file
// of one good row, then hundreds of MiB of blank lines or of bad lines
// skipped, returns within a second of its context's cancellation, which a
// stage makes on the first row. The readers looked at the context only
// when they pushed rows: 1 GiB of newlines took 14.7 s after a deadline.
func TestTextCancelledAmongBlankAndBadLines(t *testing.T) {
	if testing.Short() {
		t.Skip("reads large streams")
	}
	type src func(path string, rep *sources.SkipReport) flow.Source[sources.Record]
	csvSrc := func(path string, rep *sources.SkipReport) flow.Source[sources.Record] {
		return text.CSV[sources.Record](path, sources.ChunkSize(1), sources.SkipBad(rep))
	}
	jsonlSrc := func(path string, rep *sources.SkipReport) flow.Source[sources.Record] {
		return text.JSONL[sources.Record](path, sources.ChunkSize(1), sources.SkipBad(rep))
	}
	const mib = 1 << 20
	for _, c := range []struct {
		name, head, block string
		n                 int
		src               src
	}{
		{"blank.csv.zst", "a\n1\n", strings.Repeat("\n", mib), 256, csvSrc},
		{"bad.csv.zst", "a\n1\n", strings.Repeat("1,2\n", mib/4), 64, csvSrc},
		// A record of two lines sends the rest of the part to encoding/csv.
		{"slowblank.csv.zst", "a\n\"1\n2\"\n", strings.Repeat("\r\n", mib/2), 256, csvSrc},
		{"slowbad.csv.zst", "a\n\"1\n2\"\n", strings.Repeat("b\"c\n", mib/4), 64, csvSrc},
		{"blank.jsonl.zst", "{\"a\":1}\n", strings.Repeat("\n", mib), 256, jsonlSrc},
		{"bad.jsonl.zst", "{\"a\":1}\n", strings.Repeat("x\n", mib/2), 64, jsonlSrc},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			zstdRepeat(t, path, c.head, c.block, c.n)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var at time.Time
			stop := sync.OnceFunc(func() { at = time.Now(); cancel() })
			var rep sources.SkipReport
			err := flow.From(c.src(path, &rep)).Via(operators.Map(func(r sources.Record) (sources.Record, error) { stop(); return r, nil })).
				To(sinks.Count[sources.Record](new(int64))).Run(ctx)
			took := time.Since(at)
			if at.IsZero() || !errors.Is(err, context.Canceled) {
				t.Fatalf("no row before the end, or an error other than the cancellation: %v", err)
			}
			if took > time.Second {
				t.Fatalf("Run returned %v after the cancellation, want under a second", took)
			}
		})
	}
}

// TestCSVBlankLinesPastTheRecordLimit: blank lines that encoding/csv
// reads (after a record of two lines) are no record's: 160 MiB of them
// do not count against the longest record. The part's mark stayed where the
// blank lines began, and the run failed with "a record longer than".
func TestCSVBlankLinesPastTheRecordLimit(t *testing.T) {
	longtest.Require(t) // 160 MiB of blank lines
	path := filepath.Join(t.TempDir(), "blank.csv.zst")
	zstdRepeat(t, path, "a\n\"1\n2\"\n", strings.Repeat("\r\n", 1<<19), 160)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	f.Write(enc.EncodeAll([]byte("3\n"), nil))
	f.Close()
	var n int64
	if err := flow.From(text.CSV[sources.Record](path)).To(sinks.Count[sources.Record](&n)).Run(t.Context()); err != nil || n != 2 {
		t.Fatalf("%d rows, %v; want 2 and no error", n, err)
	}
}
