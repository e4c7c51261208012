package parquet_test

import (
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// TestParquetFingerprintsStay pins the fingerprints of two Parquet
// pipelines that use neither Columns nor a new option: a change to how
// the source describes its settings must not change them, since
// checkpoints, disk caches and sinks' outputs written by earlier versions
// are refused under another fingerprint. (Keeping Columns' order changed
// the text of a nil set of names once, and with it every Parquet
// pipeline's fingerprint. The values changed deliberately once since:
// when the rank left the sources' options for the run's, which the
// pipeline's fingerprint covers; and when the Parquet sources moved to
// package sources/parquet, as the settings name the source's format type,
// and this test's row type moved with them: with the format's package
// name put back, the Records pipeline gave its old fingerprint.)
func TestParquetFingerprintsStay(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *flow.Pipeline
		want string
	}{
		{"Parquet with Rename", flow.From(parquet.Read[fingerprintRow]("data", parquet.Rename("txt", "text"))), "d1392e526c45d1a2212d9136b0baccec"},
		{"Records with Where", flow.From(parquet.Read[sources.Record]("data", sources.Where(sources.Eq("lang", "en")))), "ccf8467b7c109a32e2814b3829ecef10"},
	} {
		if got := c.p.Fingerprint(); got != c.want {
			t.Errorf("%s: fingerprint %s, want %s", c.name, got, c.want)
		}
	}
}

type fingerprintRow struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
}
