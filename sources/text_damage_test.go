package sources_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
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
