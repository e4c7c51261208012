package shards

import (
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/rowid"
)

// manifestVersion is the version of the manifest format that
// [Parquet] writes and [ReadManifest] reads. Version 2 named the
// writer goroutines "writers" (version 1 called them "shards"); version 3
// added the job and the checksum.
const manifestVersion = 3

// Manifest describes the output of one successful run of [Parquet]
// for one rank. It is written, as indented JSON, to the file
// _manifest-<rank>.json in the output directory (the rank zero-padded to
// five digits, see "Layout of a job's output" in the package
// documentation), after every data file is in place: a manifest's
// presence means the run completed. Its content is
// deterministic: nothing in it depends on time, the machine or the
// parallelism of the pipeline.
type Manifest struct {
	// Version is the format's version, 3.
	Version int `json:"version"`
	// Format is the data files' format: "jsonl" or "csv" for
	// [JSONL] and [CSV], empty for Parquet.
	Format string `json:"format,omitempty"`
	// Fingerprint is the pipeline's fingerprint (flow.Env.Fingerprint),
	// also stored in every file's key-value metadata under
	// "rowflow.fingerprint".
	Fingerprint string `json:"fingerprint"`
	// Job identifies the job the rank is one of (flow.Env.Job): the
	// fingerprint without the rank, the same for every rank of one job.
	// [Commit] refuses ranks of different jobs.
	Job string `json:"job"`
	// Rank and World are the run's rank and number of ranks (flow's
	// WithRank; 0 and 1 without it). [Commit] refuses a rank written for
	// another world than the one it commits.
	Rank  int `json:"rank"`
	World int `json:"world"`
	// Writers is the number of writers set with [Writers].
	Writers int `json:"writers"`
	// Codec is the compression codec: zstd, snappy, gzip, lz4 or none;
	// CodecLevel the zstd encoder level (fastest, default, better, best,
	// or auto: see [ZstdLevel]).
	Codec      string `json:"codec"`
	CodecLevel string `json:"codec_level,omitempty"`
	// RowGroupRows is the number of rows of a full row group.
	RowGroupRows int64 `json:"row_group_rows"`
	// RowIDColumn is the name given to [RowIDColumn], if any.
	RowIDColumn string `json:"row_id_column,omitempty"`
	// PartitionBy lists the [PartitionBy] columns, if any.
	PartitionBy []string `json:"partition_by,omitempty"`
	// Schema is the files' Parquet schema, as parquet-go prints it.
	Schema string `json:"schema"`
	// Files lists the data files, sorted by Path.
	Files []ManifestFile `json:"files"`
	// Rows and Bytes are the totals over Files.
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
	// Checksum is the checksum of the manifest's content (see the package
	// documentation's "Records and checksums"): a manifest edited or damaged
	// is refused.
	Checksum string `json:"checksum"`

	sum string // the hex SHA-256 of the manifest's bytes, as Commit read them
}

func (m *Manifest) checksumField() *string { return &m.Checksum }

// ManifestFile describes one data file.
type ManifestFile struct {
	// Path is the file's slash-separated path relative to the output
	// directory, e.g. "part-00000-00003.parquet" or
	// "lang=en/part-00000-00000.parquet".
	Path string `json:"path"`
	// Writer is the writer that wrote the file and Seq its sequence number:
	// the writer's j-th file of a partition directory has Seq j*Writers+Writer.
	Writer int `json:"writer"`
	Seq    int `json:"seq"`
	// Partition holds the exact values of the PartitionBy columns, which
	// the directory name may hold only in truncated form.
	Partition []PartitionValue `json:"partition,omitempty"`
	// Rows and Bytes are the file's row count and size.
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
	// FirstID and LastID are the row IDs of the file's first and last
	// rows, in rowid's text form.
	FirstID rowid.ID `json:"first_id"`
	LastID  rowid.ID `json:"last_id"`
	// SHA256 is the hex SHA-256 of the file's bytes.
	SHA256 string `json:"sha256"`
}

// PartitionValue is the value of one PartitionBy column. Null and empty
// values are both "" and share the directory __HIVE_DEFAULT_PARTITION__.
// JSON strings hold only UTF-8: in a value that is not valid UTF-8, each
// bad byte reads back as U+FFFD, while the directory name, escaped byte
// by byte, keeps the exact value.
type PartitionValue struct {
	Column string `json:"column"`
	Value  string `json:"value"`
}

// manifestName returns the name of the manifest of rank r:
// "_manifest-<rank>.json", the rank zero-padded to five digits, e.g.
// _manifest-00000.json. The leading underscore makes dataset discovery
// skip it.
func manifestName(rank int) string {
	return fmt.Sprintf("_manifest-%05d.json", rank)
}

// ReadManifest reads the manifest of rank in dir. An error names the file;
// a missing manifest gives an error that satisfies errors.Is(err,
// fs.ErrNotExist). A manifest of another version than this package writes
// is refused: it was written by another version of rowflow, and the
// output is rewritten by running the job again with [Overwrite].
func ReadManifest(dir string, rank int) (*Manifest, error) {
	root, err := openTree(dir)
	var b []byte
	if err == nil {
		b, err = root.readRecord(manifestName(rank))
		root.Close()
	}
	path := joinDir(dir, manifestName(rank))
	if err != nil {
		return nil, fmt.Errorf("shards: reading manifest in %s: %w", dir, err)
	}
	m, err := decodeManifest(path, b, rank)
	if err != nil {
		return nil, fmt.Errorf("shards: %w", err)
	}
	return m, nil
}

// decodeManifest decodes the manifest b of rank read from path, and
// checks its version, its checksum and its fields (see Manifest.check).
// Its errors name the file and have no package prefix.
func decodeManifest(path string, b []byte, rank int) (*Manifest, error) {
	v, err := recordVersion(b)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if v != manifestVersion {
		return nil, fmt.Errorf("manifest %s: format version %d, but this version of rowflow reads only version %d; rewrite the output with this version (Overwrite)", path, v, manifestVersion)
	}
	var m Manifest
	if err := decodeRecord(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	if m.Rank != rank {
		return nil, fmt.Errorf("manifest %s is the manifest of rank %d", path, m.Rank)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	return &m, nil
}

// check checks the manifest's fields, as Parquet writes them: a
// rank and world within limits.MaxWorld, the files sorted and named as
// the rank's data files under the directory (see checkLocal), counts that
// are not negative and add up to the totals. Its error names the field or
// the file.
func (m *Manifest) check() error {
	switch {
	case m.Rank < 0 || m.Rank >= limits.MaxWorld:
		return fmt.Errorf("rank %d: must be from 0 to %d", m.Rank, limits.MaxWorld-1)
	case m.World < 1 || m.World > limits.MaxWorld:
		return fmt.Errorf("world %d: must be from 1 to %d", m.World, limits.MaxWorld)
	case m.Rank >= m.World:
		return fmt.Errorf("rank %d of a world of %d", m.Rank, m.World)
	case m.Format != "" && m.Format != "jsonl" && m.Format != "csv":
		return fmt.Errorf("unknown format %q", m.Format)
	case m.Writers < 1:
		return fmt.Errorf("writers %d: must be at least 1", m.Writers)
	case !isHex(m.Fingerprint, 32):
		return fmt.Errorf("fingerprint %q: want 32 hex digits", m.Fingerprint)
	case !isHex(m.Job, 32):
		return fmt.Errorf("job %q: want 32 hex digits", m.Job)
	case m.RowGroupRows < 0 || m.Rows < 0 || m.Bytes < 0:
		return fmt.Errorf("negative count: row_group_rows %d, rows %d, bytes %d", m.RowGroupRows, m.Rows, m.Bytes)
	}
	var rows, size int64
	for i := range m.Files {
		f := &m.Files[i]
		if err := m.checkFile(i, f); err != nil {
			return fmt.Errorf("file %d (path %q): %w", i+1, f.Path, err)
		}
		if rows > math.MaxInt64-f.Rows || size > math.MaxInt64-f.Bytes {
			return fmt.Errorf("the files' rows or bytes overflow")
		}
		rows += f.Rows
		size += f.Bytes
	}
	if rows != m.Rows || size != m.Bytes {
		return fmt.Errorf("totals of %d rows and %d bytes, but its files hold %d rows and %d bytes", m.Rows, m.Bytes, rows, size)
	}
	return nil
}

// checkFile checks the i-th entry of the manifest's files.
func (m *Manifest) checkFile(i int, f *ManifestFile) error {
	if err := checkLocal(f.Path); err != nil {
		return err
	}
	if r, ok := dataFileRank(path.Base(f.Path)); !ok || r != m.Rank {
		return fmt.Errorf("not the name of a data file of rank %d (part-%05d-<seq>.<ext>)", m.Rank, m.Rank)
	}
	switch {
	case i > 0 && f.Path <= m.Files[i-1].Path:
		return fmt.Errorf("the files are not sorted by path, or listed twice")
	case strings.Count(f.Path, "/") != len(m.PartitionBy) || len(f.Partition) != len(m.PartitionBy):
		return fmt.Errorf("%d directories and %d partition values, but the output is partitioned by %d columns", strings.Count(f.Path, "/"), len(f.Partition), len(m.PartitionBy))
	case f.Writer < 0 || f.Writer >= m.Writers || f.Seq < 0:
		return fmt.Errorf("writer %d of %d, sequence number %d", f.Writer, m.Writers, f.Seq)
	case f.Rows < 0 || f.Bytes < 0:
		return fmt.Errorf("negative count: rows %d, bytes %d", f.Rows, f.Bytes)
	case !isHex(f.SHA256, 64):
		return fmt.Errorf("SHA-256 %q: want 64 hex digits", f.SHA256)
	}
	return nil
}

// isHex reports whether s is n lower-case hex digits.
func isHex(s string, n int) bool {
	return len(s) == n && strings.Trim(s, "0123456789abcdef") == ""
}

// encode seals the manifest and returns it as it is written: indented
// JSON and a newline.
func (m *Manifest) encode() ([]byte, error) { return encodeRecord(m) }
