package sources

import (
	"fmt"

	"github.com/rowflow/rowflow/internal/io/datasource"
)

// SkipBad makes a source of a dataset of files skip what it cannot read
// instead of failing, and write what it skipped to report when the run
// ends, replacing its contents. What is skipped depends on the format:
//
//   - Parquet: a fragment whose pages are corrupt, unsupported or too
//     large yields no rows (its partition still closes), and a file whose
//     footer cannot be read yields no fragments. A fragment's rows are
//     buffered until it has been read whole, so that no row of a bad
//     fragment is passed on.
//   - CSV and JSON Lines: a record that cannot be decoded is left out. A
//     file that cannot be read at all (missing, or a compressed stream
//     that is corrupt) still fails the run.
//
// The same input gives the same report at every parallelism, for runs
// that read the whole plan. (When a stage downstream ends the stream
// early, as operators.Take does, parallel readers may have read ahead,
// and skipped, what a serial run never reached.)
//
// The report is bounded, since input decides its size: of the records of
// text files it lists the first 1000 (by file, then offset), each message
// cut to its first KiB, and no more than 256 KiB of messages and paths in
// all; [SkipReport.Omitted] counts the ones it leaves out.
func SkipBad(report *SkipReport) DatasetOption {
	return datasetOption(func(s *datasource.Settings) error {
		if report == nil {
			return fmt.Errorf("sources: SkipBad(nil): want a report to write to")
		}
		s.Skip = report
		return nil
	})
}

// SkipReport lists what a run with [SkipBad] skipped.
type SkipReport struct {
	// Skipped lists what was skipped, as many as the bounds allow. A
	// Parquet source lists the files whose footer failed first (by
	// path), then fragments by partition number; a text source lists
	// records by file path, then byte offset.
	Skipped []Skipped
	// Omitted counts the skipped records that Skipped leaves out.
	Omitted int64
	// RowsLost counts the rows of the skipped Parquet fragments, as the
	// footers declare them; the rows of files whose footer failed are
	// unknown. A skipped text record is one row lost, counted in Skipped
	// and Omitted.
	RowsLost int64
	// FilesLost counts the Parquet files whose footer could not be read.
	FilesLost int
}

// Skipped is one thing a run with [SkipBad] skipped: a Parquet file (Part
// and RowGroup -1), a Parquet fragment (rows From to To of a row group),
// or a record of a text file (the Line it starts on, from 1, and the
// byte Offset of its start in the decompressed file).
type Skipped struct {
	Path         string // relative to the dataset root
	Part         int64  // Parquet: the fragment's partition
	RowGroup     int
	From, To     int64
	Line, Offset int64 // text
	// Err says what is wrong with it; for a text record, the first KiB
	// of the message, then how many bytes more it had.
	Err string
}
