package sources_test

import (
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
)

// TestParquetFingerprintsStay pins the fingerprints of two Parquet
// pipelines that use neither Columns nor a new option: a change to how
// the source describes its settings must not change them, since
// checkpoints, disk caches and sinks' outputs written by earlier versions
// are refused under another fingerprint. (Keeping Columns' order changed
// the text of a nil set of names once, and with it every Parquet
// pipeline's fingerprint. The values changed deliberately once since:
// when the rank left the sources' options for the run's, which the
// pipeline's fingerprint covers.)
func TestParquetFingerprintsStay(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *flow.Pipeline
		want string
	}{
		{"Parquet with Rename", flow.From(sources.Parquet[fingerprintRow]("data", sources.Rename("txt", "text"))), "dc7f7a3e46f06be6c415afc9693edd65"},
		{"ParquetRecords with Where", flow.From(sources.ParquetRecords("data", sources.Where(sources.Eq("lang", "en")))), "f3afe536e14197d463b14ee21cf99325"},
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
