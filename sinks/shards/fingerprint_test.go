package shards_test

import (
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// The settings that decide the files a sink writes are part of the
// pipeline's fingerprint, so a run that continues an output with other
// settings does not take the old files as its own; the directory is not.
func TestShardSettingsInFingerprint(t *testing.T) {
	rows := make([]pqRow, 10)
	fp := func(dir string, opts ...shards.ParquetOption) string {
		return flow.From(sources.Slice(rows)).To(shards.Parquet[pqRow](dir, opts...)).Fingerprint()
	}
	base := fp("out", shards.RowsPerFile(10))
	if again := fp(filepath.Join("elsewhere", "out"), shards.RowsPerFile(10)); again != base {
		t.Errorf("another directory: fingerprint %s, want %s", again, base)
	}
	// A cap on open writers decides whether a run fits in memory, not
	// what it writes.
	if again := fp("out", shards.RowsPerFile(10), shards.MaxOpenPartitions(8)); again != base {
		t.Errorf("MaxOpenPartitions: fingerprint %s, want %s", again, base)
	}
	for name, other := range map[string]string{
		"rows per file": fp("out", shards.RowsPerFile(20)),
		"codec":         fp("out", shards.RowsPerFile(10), shards.Compression("gzip")),
		"row groups":    fp("out", shards.RowsPerFile(10), shards.RowGroupRows(5)),
		"row ID column": fp("out", shards.RowsPerFile(10), shards.RowIDColumn("rid")),
	} {
		if other == base {
			t.Errorf("%s: same fingerprint %s", name, base)
		}
	}
}
