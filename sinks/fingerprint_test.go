package sinks_test

import (
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// The settings that decide the files a sink writes are part of the
// pipeline's fingerprint, so a run that continues an output with other
// settings does not take the old files as its own; the directory is not.
func TestShardSettingsInFingerprint(t *testing.T) {
	rows := make([]pqRow, 10)
	fp := func(dir string, opts ...sinks.ParquetOption) string {
		return flow.From(sources.Slice(rows)).To(sinks.ParquetShards[pqRow](dir, opts...)).Fingerprint()
	}
	base := fp("out", sinks.RowsPerFile(10))
	if again := fp(filepath.Join("elsewhere", "out"), sinks.RowsPerFile(10)); again != base {
		t.Errorf("another directory: fingerprint %s, want %s", again, base)
	}
	// A cap on open writers decides whether a run fits in memory, not
	// what it writes.
	if again := fp("out", sinks.RowsPerFile(10), sinks.MaxOpenPartitions(8)); again != base {
		t.Errorf("MaxOpenPartitions: fingerprint %s, want %s", again, base)
	}
	for name, other := range map[string]string{
		"rows per file": fp("out", sinks.RowsPerFile(20)),
		"codec":         fp("out", sinks.RowsPerFile(10), sinks.Codec("gzip")),
		"row groups":    fp("out", sinks.RowsPerFile(10), sinks.RowGroupRows(5)),
		"row ID column": fp("out", sinks.RowsPerFile(10), sinks.RowIDColumn("rid")),
	} {
		if other == base {
			t.Errorf("%s: same fingerprint %s", name, base)
		}
	}
}
