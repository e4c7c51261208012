package sources_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// skipTranscript reads the text file at path (CSV, or JSON Lines if its
// name says so) as records with SkipBadLines, split into ranges of size
// bytes and read at parallelism par, and returns all a reader sees: each
// row's ID and values, in order, then the bad-line report; or the error
// of a run that fails.
func skipTranscript(ctx context.Context, path string, size int64, par int) string {
	var rep sources.BadLineReport
	var src flow.Source[sources.Record]
	if strings.Contains(filepath.Base(path), ".jsonl") {
		src = sources.JSONLRecords(path, sources.PartitionBytes(size), sources.SkipBadLines(&rep))
	} else {
		src = sources.CSVRecords(path, sources.PartitionBytes(size), sources.SkipBadLines(&rep))
	}
	var b strings.Builder
	for it, e := range flow.Items[sources.Record](ctx, flow.From(src).Parallel(par)) {
		if e != nil {
			return fmt.Sprintf("err %v\n", e) // the rows before it depend on the schedule
		}
		fmt.Fprintf(&b, "%v %q %q\n", it.ID, it.Value.Names, it.Value.Values)
	}
	for _, l := range rep.Lines {
		fmt.Fprintf(&b, "bad %s:%d @%d: %s\n", l.Path, l.Line, l.Offset, l.Err)
	}
	fmt.Fprintf(&b, "omitted %d\n", rep.Omitted)
	return b.String()
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
			return sources.CSV[row](dir, sources.PartitionBytes(1<<30), sources.ChunkSize(100))
		}},
		{"f.jsonl", "", "{\"a\":\"%06d\"}\n", func(dir string) flow.Source[row] {
			return sources.JSONL[row](dir, sources.PartitionBytes(1<<30), sources.ChunkSize(100))
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
