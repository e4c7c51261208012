package shards_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// shardSinks returns the three shard sinks writing to dir with opt.
func shardSinks(dir string, opt shards.Option) map[string]flow.Sink {
	return map[string]flow.Sink{
		"parquet": shards.Parquet[note](dir, opt),
		"jsonl":   shards.JSONL[note](dir, opt),
		"csv":     shards.CSV[note](dir, opt),
	}
}

// wantBuildError checks that the sink keeps an error containing want,
// that a run fails with it at once, and that nothing is written.
func wantBuildError(t *testing.T, what string, sink flow.Sink, p *flow.Pipeline, dir, want string) {
	t.Helper()
	if err := p.To(sink).Err(); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: To kept %v, want an error containing %q", what, err, want)
	}
	if err := p.To(sink).Run(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%s: run: %v, want an error containing %q", what, err, want)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: the run created %s", what, dir)
	}
}

// Writers is bounded by limits.MaxWriters in every shard sink: a larger n is an
// error of the option when the sink is built, not a run that makes n
// writers (which, with math.MaxInt, never ends and exhausts memory).
func TestWritersBound(t *testing.T) {
	for _, n := range []int{limits.MaxWriters + 1, math.MaxInt, 0, math.MinInt} {
		dir := filepath.Join(t.TempDir(), "out")
		for format, sink := range shardSinks(dir, shards.Writers(n)) {
			want := fmt.Sprintf("shards: Writers(%d): must be from 1 to 4096", n)
			wantBuildError(t, format+" "+want, sink, flow.From(sources.Slice(notes(10))), dir, want)
		}
	}
	// limits.MaxWriters itself is accepted, and every row is written once.
	dir := filepath.Join(t.TempDir(), "out")
	rows := pqRows(3000)
	if err := pqPipeline(rows, 2).To(shards.Parquet[pqRow](dir, shards.Writers(limits.MaxWriters))).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, nil)
	if m.Writers != limits.MaxWriters || m.Rows != 3000 {
		t.Fatalf("manifest: %d writers, %d rows", m.Writers, m.Rows)
	}
}

// PageSize is bounded by MaxPageBytes: a larger size is an error that
// names the option when the sink is built, not parquet-go's "number of
// values out of range" when the run writes.
func TestPageSizeBound(t *testing.T) {
	for _, n := range []int{shards.MaxPageBytes + 1, math.MaxInt, 0, math.MinInt} {
		dir := filepath.Join(t.TempDir(), "out")
		want := fmt.Sprintf("shards: PageSize(%d): must be from 1 to 134217728", n)
		wantBuildError(t, want, shards.Parquet[pqRow](dir, shards.PageSize(n)), pqPipeline(pqRows(10), 1), dir, want)
	}
	// MaxPageBytes itself is accepted, and the files read back.
	dir := filepath.Join(t.TempDir(), "out")
	rows := pqRows(3000)
	if err := pqPipeline(rows, 2).To(shards.Parquet[pqRow](dir, shards.PageSize(shards.MaxPageBytes))).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, nil)
	equalRows(t, concatFiles[pqRow](t, dir, m), rows)
}

// The other size options take the largest values as "no limit in
// practice" and reject negative ones with an error naming the option.
func TestSizeOptionsAtExtremes(t *testing.T) {
	rows := pqRows(3000)
	for _, o := range []shards.ParquetOption{
		shards.RowsPerFile(math.MaxInt64), shards.BytesPerFile(math.MaxInt64),
		shards.RowGroupRows(math.MaxInt), shards.MaxOpenPartitions(math.MaxInt),
	} {
		dir := filepath.Join(t.TempDir(), "out")
		if err := pqPipeline(rows, 2).To(shards.Parquet[pqRow](dir, o)).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		m := checkManifest(t, dir, 0, nil)
		if len(m.Files) != 1 {
			t.Errorf("%d files, want 1", len(m.Files))
		}
		equalRows(t, concatFiles[pqRow](t, dir, m), rows)
	}
	for want, o := range map[string]shards.ParquetOption{
		"shards: RowsPerFile(-9223372036854775808): must be at least 1":       shards.RowsPerFile(math.MinInt64),
		"shards: BytesPerFile(-1): must be at least 1":                        shards.BytesPerFile(-1),
		"shards: RowGroupRows(-9223372036854775808): must be at least 1":      shards.RowGroupRows(math.MinInt),
		"shards: MaxOpenPartitions(-9223372036854775808): must be at least 1": shards.MaxOpenPartitions(math.MinInt),
		"shards: ZstdLevel(9223372036854775807): must be from 1 to 22":        shards.ZstdLevel(math.MaxInt),
	} {
		dir := filepath.Join(t.TempDir(), "out")
		wantBuildError(t, want, shards.Parquet[pqRow](dir, o), pqPipeline(pqRows(10), 1), dir, want)
	}
}
