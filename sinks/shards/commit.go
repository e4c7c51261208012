package shards

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/rowid"
)

// datasetManifestName is the name of the dataset manifest that Commit
// writes in the output directory of a job of several ranks. The leading
// underscore makes dataset discovery skip it.
const datasetManifestName = "_manifest.json"

// datasetManifestVersion is the version of the format of
// [DatasetManifest] that [Commit] writes and [ReadDatasetManifest] reads.
// Version 2 added the job and the checksum.
const datasetManifestVersion = 2

// DatasetManifest is the commit record of a job's output as a whole: what
// [Commit] checked and found, written as indented JSON to _manifest.json
// in the output directory. Its presence means every rank finished and the
// ranks' outputs form one dataset. Its content is a function of the
// ranks' manifests.
type DatasetManifest struct {
	// Version is the format's version, 2.
	Version int `json:"version"`
	// World is the number of ranks: 0 to World-1.
	World int `json:"world"`
	// Job is the job of every rank (see [Manifest].Job).
	Job string `json:"job"`
	// Schema, RowIDColumn and PartitionBy are those of every rank's
	// manifest, which agree.
	Schema      string   `json:"schema"`
	RowIDColumn string   `json:"row_id_column,omitempty"`
	PartitionBy []string `json:"partition_by,omitempty"`
	// RowIDs says how Commit checked that no row was written twice:
	// "distinct" when the files hold the row-ID column and every row's ID
	// was read and found once in the whole dataset; "file bounds" when
	// they do not, and only the first and last row IDs of the files, from
	// the manifests, were found distinct.
	RowIDs string `json:"row_ids"`
	// Ranks lists the ranks' manifests, by rank.
	Ranks []DatasetRank `json:"ranks"`
	// Files, Rows and Bytes are the totals over the ranks.
	Files int   `json:"files"`
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
	// Checksum is the checksum of the dataset manifest's content (see the
	// package documentation's "Records and checksums").
	Checksum string `json:"checksum"`
}

func (dm *DatasetManifest) checksumField() *string { return &dm.Checksum }

// DatasetRank is one rank's part of a [DatasetManifest].
type DatasetRank struct {
	Rank int `json:"rank"`
	// Manifest is the name of the rank's manifest, and SHA256 the hex
	// SHA-256 of its bytes: the dataset manifest commits to the exact
	// manifests, which commit to the files' bytes.
	Manifest string `json:"manifest"`
	SHA256   string `json:"sha256"`
	// Fingerprint is the pipeline fingerprint of the rank's run.
	Fingerprint string `json:"fingerprint"`
	Files       int    `json:"files"`
	Rows        int64  `json:"rows"`
	Bytes       int64  `json:"bytes"`
}

// Row-ID checks of a DatasetManifest.
const (
	rowIDsDistinct = "distinct"
	rowIDsBounds   = "file bounds"
)

// CommitOption configures [Commit].
type CommitOption interface {
	applyCommit(*commitConfig) error
}

type commitOption func(*commitConfig) error

func (o commitOption) applyCommit(c *commitConfig) error { return o(c) }

type commitConfig struct {
	rows int64 // -1: not checked
}

// ExpectRows makes [Commit] check that the ranks wrote n rows in all:
// with the row IDs found distinct, the union holds exactly n rows. It is
// how a caller that knows the input's size (a source's row count, a
// serial run) checks that the union is complete. n must be at least 0.
func ExpectRows(n int64) CommitOption {
	return commitOption(func(c *commitConfig) error {
		if n < 0 {
			return fmt.Errorf("ExpectRows(%d): must be at least 0", n)
		}
		c.rows = n
		return nil
	})
}

// Commit checks that the world ranks of a sharded job wrote one complete
// dataset into dir, and writes its dataset manifest, _manifest.json.
// Each rank r writes into dir with [Parquet] (or another shard sink)
// in a run given its rank with flow's WithRank(r, world); once all have
// finished, one process commits. Commit checks that:
//
//   - every rank 0 to world-1 finished: its manifest is in dir, and every
//     file it lists has the size, SHA-256 and row count it records (and,
//     with [RowIDColumn], the first and last row IDs), as [VerifyManifest]
//     checks;
//   - there is no other data: no data file of a rank that its manifest
//     does not list, no data file or manifest of a rank outside
//     [0, world) (a run with a larger world, say), and no other file
//     that a reader of dir would read as data: a file named as the
//     sources' directory search takes data (*.parquet, *.csv, *.jsonl,
//     *.ndjson, the text ones compressed or not, whatever the format of
//     the ranks' output), or a link to a directory, anywhere under dir
//     outside files and directories whose names start with "." or "_",
//     which the search skips. The hidden temporary files of killed runs
//     are skipped too (rowflow cleanup removes them);
//   - every rank was written for this world: a rank's manifest that
//     records another world (see [Manifest].World), larger or smaller,
//     1 included, is refused, and the error names the rank, its manifest
//     and both worlds;
//   - every rank is of one job: their manifests record the same
//     [Manifest].Job, the pipeline's identity without its rank; ranks of
//     pipelines of another definition, seed or epochs are refused, and
//     the error names both ranks, their manifests and jobs;
//   - the ranks' outputs form one dataset: their manifests have the same
//     schema, row-ID column and partition columns;
//   - no row is written twice: with the row-ID column, every row's ID is
//     read, and each must occur once in the whole dataset (so the ranks'
//     rows are disjoint, and no rank wrote a row twice); without it, only
//     the first and last row IDs of the files, which the manifests
//     record, are compared, which catches a share of the input written by
//     two ranks only where their files start or end on the same rows;
//   - with [ExpectRows], that the ranks wrote that many rows in all.
//
// "Complete" means no more than that: every rank finished and the union
// has no duplicate. Commit cannot know which rows the input held; that
// each rank read its share and the union is the whole input follows from
// the ranks' sources (every rank reading with the same seed and world),
// and a caller who knows the input's row count states it with ExpectRows.
// A job of several epochs writes each row once per epoch, and does not
// commit with the row-ID column.
//
// The dataset manifest is written under a hidden temporary name, synced,
// renamed and its directory synced: it is there, whole, or not at all.
// Commit of an output whose dataset manifest already holds what Commit
// would write leaves it as it is: a second commit of the same output is a
// no-op (but checks everything again). A rank rewritten after the commit
// makes the dataset manifest stale; Commit again replaces it.
//
// Every manifest is read and checked as "Records and checksums" in the
// package documentation says: its checksum and fields, and its paths,
// confined to dir; the files are opened through an [os.Root] of dir and
// must be regular files. world must be from 1 to 65536, the most
// processes a job may have.
//
// Errors name the rank and the file; up to ten problems are reported
// together. Commit reads every file once to hash it, and its footer and
// row-ID columns; it holds 16 bytes per row in memory while it checks the
// row IDs.
func Commit(dir string, world int, opts ...CommitOption) (*DatasetManifest, error) {
	fail := func(err error) error { return fmt.Errorf("shards: Commit(%q): %w", dir, err) }
	cfg := commitConfig{rows: -1}
	for _, o := range opts {
		if o == nil {
			return nil, fail(errors.New("nil CommitOption"))
		}
		if err := o.applyCommit(&cfg); err != nil {
			return nil, fail(err)
		}
	}
	if world < 1 || world > limits.MaxWorld {
		return nil, fail(fmt.Errorf("world %d: must be from 1 to %d", world, limits.MaxWorld))
	}
	root, err := openTree(dir)
	if err != nil {
		return nil, fail(err)
	}
	defer root.Close()
	out, err := root.scan()
	if err != nil {
		return nil, fail(err)
	}
	if err := checkWorld(out, world); err != nil {
		return nil, fail(err)
	}
	if len(out.stray) > 0 {
		return nil, fail(strayError(out.stray))
	}
	ms := make([]*Manifest, world)
	var errs []error
	for r := range world {
		if ms[r], err = readRankManifest(root, r); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		errs = checkManifestWorld(ms, world)
	}
	if len(errs) == 0 {
		errs = checkSameJob(ms)
	}
	if len(errs) == 0 {
		errs = checkSameDataset(ms)
	}
	if len(errs) > 0 {
		return nil, fail(joinFirst(errs))
	}
	var ids []rowid.ID
	collect := func(b []rowid.ID) { ids = append(ids, b...) }
	if ms[0].RowIDColumn == "" {
		collect = nil
	}
	if errs = checkRanks(root, ms, out, collect); len(errs) > 0 {
		return nil, fail(joinFirst(errs))
	}
	dm, err := datasetManifest(ms)
	if err != nil {
		return nil, fail(err)
	}
	if collect != nil {
		err = checkDistinctIDs(root, ms, ids)
	} else {
		err = checkFileBounds(ms)
	}
	if err != nil {
		return nil, fail(err)
	}
	if cfg.rows >= 0 && dm.Rows != cfg.rows {
		return nil, fail(fmt.Errorf("the ranks wrote %d rows in all, ExpectRows says %d", dm.Rows, cfg.rows))
	}
	if err := root.writeDatasetManifest(dm); err != nil {
		return nil, fail(err)
	}
	return dm, nil
}

// checkWorld checks that every rank of the world has a manifest and that
// no rank outside it left a manifest or data files. It names up to ten
// ranks of each kind, and says how many more there are.
func checkWorld(out *output, world int) error {
	const most = 10
	var missing, extra []string
	var moreMissing, moreExtra int
	have := map[int]bool{}
	addExtra := func(s string) {
		if len(extra) < most {
			extra = append(extra, s)
		} else {
			moreExtra++
		}
	}
	for _, r := range out.manifests {
		have[r] = true
		if r >= world {
			addExtra(fmt.Sprintf("rank %d's manifest %s", r, manifestName(r)))
		}
	}
	for r := range world {
		switch {
		case have[r]:
		case len(missing) < most:
			missing = append(missing, fmt.Sprint(r))
		default:
			moreMissing++
		}
	}
	for _, r := range slices.Sorted(maps.Keys(out.files)) {
		if r >= world {
			addExtra(fmt.Sprintf("rank %d's %s", r, out.files[r][0]))
		}
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("rank %s%s of %d %s not finished: no manifest", strings.Join(missing, ", "), andMore(moreMissing), world, pluralHas(len(missing)+moreMissing)))
	}
	if len(extra) > 0 {
		errs = append(errs, fmt.Errorf("the directory holds output of ranks outside a world of %d: %s%s", world, strings.Join(extra, ", "), andMore(moreExtra)))
	}
	return joinFirst(errs)
}

// andMore returns " and n more", or "" if n is 0.
func andMore(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" and %d more", n)
}

// pluralHas returns "has" for one and "have" for more.
func pluralHas(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// strayError reports the data files of the directory that no rank wrote.
func strayError(stray []string) error {
	const most = 10
	more := ""
	if len(stray) > most {
		more = fmt.Sprintf(" and %d more", len(stray)-most)
		stray = stray[:most]
	}
	return fmt.Errorf("the directory holds data that no rank's manifest lists, which readers of the directory would read with the ranks' files: %s%s", strings.Join(stray, ", "), more)
}

// checkManifestWorld checks that no rank's manifest records another world
// than the one committed: a rank written as rank r of a larger world holds
// only its share of that world's rows.
func checkManifestWorld(ms []*Manifest, world int) []error {
	var errs []error
	for r, m := range ms {
		if m.World != world {
			errs = append(errs, fmt.Errorf("rank %d was written as rank %d of %d (%s records world %d), not as a rank of the world of %d being committed",
				r, m.Rank, m.World, manifestName(r), m.World, world))
		}
	}
	return errs
}

// checkSameJob checks that the ranks' manifests record one job: ranks
// of different pipelines (definition, seed, epochs) or worlds do not make
// one dataset, even when their schemas agree.
func checkSameJob(ms []*Manifest) []error {
	var errs []error
	for _, m := range ms[1:] {
		if m.Job != ms[0].Job {
			errs = append(errs, fmt.Errorf("rank %d is a rank of another job than rank 0: %s records job %s, %s job %s (their pipelines differ in definition, seed, epochs or world); rerun the ranks of one job",
				m.Rank, manifestName(m.Rank), m.Job, manifestName(0), ms[0].Job))
		}
	}
	return errs
}

// checkSameDataset checks that the ranks' manifests describe one dataset.
func checkSameDataset(ms []*Manifest) []error {
	var errs []error
	first := ms[0]
	for _, m := range ms[1:] {
		switch {
		case m.Schema != first.Schema:
			errs = append(errs, fmt.Errorf("rank %d wrote another schema than rank 0:\n%s\nrank 0:\n%s", m.Rank, m.Schema, first.Schema))
		case m.RowIDColumn != first.RowIDColumn:
			errs = append(errs, fmt.Errorf("rank %d has row-ID column %q, rank 0 %q", m.Rank, m.RowIDColumn, first.RowIDColumn))
		case !slices.Equal(m.PartitionBy, first.PartitionBy):
			errs = append(errs, fmt.Errorf("rank %d is partitioned by %q, rank 0 by %q", m.Rank, m.PartitionBy, first.PartitionBy))
		}
	}
	return errs
}

// datasetManifest returns the dataset manifest of the ranks' manifests,
// read by readRankManifest.
func datasetManifest(ms []*Manifest) (*DatasetManifest, error) {
	dm := &DatasetManifest{
		Version:     datasetManifestVersion,
		World:       len(ms),
		Job:         ms[0].Job,
		Schema:      ms[0].Schema,
		RowIDColumn: ms[0].RowIDColumn,
		PartitionBy: ms[0].PartitionBy,
		RowIDs:      rowIDsDistinct,
		Ranks:       make([]DatasetRank, len(ms)),
	}
	if dm.RowIDColumn == "" {
		dm.RowIDs = rowIDsBounds
	}
	for r, m := range ms {
		if dm.Rows > math.MaxInt64-m.Rows || dm.Bytes > math.MaxInt64-m.Bytes {
			return nil, fmt.Errorf("the ranks' rows or bytes overflow at rank %d", r)
		}
		dm.Ranks[r] = DatasetRank{Rank: r, Manifest: manifestName(r), SHA256: m.sum, Fingerprint: m.Fingerprint,
			Files: len(m.Files), Rows: m.Rows, Bytes: m.Bytes}
		dm.Files += len(m.Files)
		dm.Rows += m.Rows
		dm.Bytes += m.Bytes
	}
	return dm, nil
}

// checkDistinctIDs checks that ids, every row ID of the dataset, holds no
// ID twice. If one is, it reads the files again to name those that hold
// it.
func checkDistinctIDs(root *outputTree, ms []*Manifest, ids []rowid.ID) error {
	slices.SortFunc(ids, rowid.ID.Compare)
	var dup []rowid.ID
	for i := 1; i < len(ids) && len(dup) < 3; i++ {
		if ids[i] == ids[i-1] && (len(dup) == 0 || dup[len(dup)-1] != ids[i]) {
			dup = append(dup, ids[i])
		}
	}
	if len(dup) == 0 {
		return nil
	}
	where := map[rowid.ID][]string{}
	for _, m := range ms {
		for _, f := range m.Files {
			listedRowIDs(root, f.Path, m, func(b []rowid.ID) {
				for _, id := range b {
					if slices.Contains(dup, id) {
						where[id] = append(where[id], fmt.Sprintf("rank %d's %s", m.Rank, f.Path))
					}
				}
			})
		}
	}
	var errs []error
	for _, id := range dup {
		errs = append(errs, fmt.Errorf("row ID %s is written more than once: in %s", id, strings.Join(where[id], " and ")))
	}
	return errors.Join(errs...)
}

// checkFileBounds checks that no two files of the dataset start or end
// with the same row ID, and no file starts or ends with another's first
// or last ID.
func checkFileBounds(ms []*Manifest) error {
	seen := map[rowid.ID]string{}
	for _, m := range ms {
		for _, f := range m.Files {
			where := fmt.Sprintf("rank %d's %s", m.Rank, f.Path)
			for i, id := range []rowid.ID{f.FirstID, f.LastID} {
				if i == 1 && f.Rows == 1 {
					break
				}
				if other, ok := seen[id]; ok {
					return fmt.Errorf("row ID %s is written more than once: in %s and %s", id, other, where)
				}
				seen[id] = where
			}
		}
	}
	return nil
}

// ReadDatasetManifest reads the dataset manifest of dir, which [Commit]
// wrote, and checks its version, its checksum and its fields: a damaged
// or edited one is an error that names the file and what is wrong. A
// missing one gives an error that satisfies errors.Is(err,
// fs.ErrNotExist): the job's output is not committed. It does not check
// the files; Commit does.
func ReadDatasetManifest(dir string) (*DatasetManifest, error) {
	root, err := openTree(dir)
	var b []byte
	if err == nil {
		b, err = root.readRecord(datasetManifestName)
		root.Close()
	}
	p := joinDir(dir, datasetManifestName)
	if err != nil {
		return nil, fmt.Errorf("shards: reading the dataset manifest in %s: %w", dir, err)
	}
	fail := func(err error) error { return fmt.Errorf("shards: dataset manifest %s: %w", p, err) }
	v, err := recordVersion(b)
	if err != nil {
		return nil, fail(err)
	}
	if v != datasetManifestVersion {
		return nil, fail(fmt.Errorf("format version %d, but this version of rowflow reads only version %d; commit the output again with this version", v, datasetManifestVersion))
	}
	var dm DatasetManifest
	if err := decodeRecord(b, &dm); err != nil {
		return nil, fail(err)
	}
	if err := dm.check(); err != nil {
		return nil, fail(err)
	}
	return &dm, nil
}

// check checks the dataset manifest's fields: a world within
// limits.MaxWorld and one entry per rank, in order, naming its manifest;
// hashes and fingerprints of their lengths; counts not negative that add
// up to the totals; a row-ID check that matches the row-ID column.
func (dm *DatasetManifest) check() error {
	switch {
	case dm.World < 1 || dm.World > limits.MaxWorld:
		return fmt.Errorf("world %d: must be from 1 to %d", dm.World, limits.MaxWorld)
	case len(dm.Ranks) != dm.World:
		return fmt.Errorf("%d ranks listed for a world of %d", len(dm.Ranks), dm.World)
	case !isHex(dm.Job, 32):
		return fmt.Errorf("job %q: want 32 hex digits", dm.Job)
	case dm.RowIDs != rowIDsDistinct && dm.RowIDs != rowIDsBounds,
		(dm.RowIDs == rowIDsDistinct) != (dm.RowIDColumn != ""):
		return fmt.Errorf("row_ids %q with row-ID column %q", dm.RowIDs, dm.RowIDColumn)
	}
	var files, rows, size int64
	for i, r := range dm.Ranks {
		switch {
		case r.Rank != i || r.Manifest != manifestName(i):
			return fmt.Errorf("rank entry %d: rank %d, manifest %q; want rank %d, %s", i+1, r.Rank, r.Manifest, i, manifestName(i))
		case !isHex(r.SHA256, 64) || !isHex(r.Fingerprint, 32):
			return fmt.Errorf("rank %d: SHA-256 %q or fingerprint %q is not of 64 or 32 hex digits", i, r.SHA256, r.Fingerprint)
		case r.Files < 0 || r.Rows < 0 || r.Bytes < 0:
			return fmt.Errorf("rank %d: negative count: files %d, rows %d, bytes %d", i, r.Files, r.Rows, r.Bytes)
		case rows > math.MaxInt64-r.Rows || size > math.MaxInt64-r.Bytes:
			return fmt.Errorf("rank %d: the ranks' rows or bytes overflow", i)
		}
		files += int64(r.Files)
		rows += r.Rows
		size += r.Bytes
	}
	if files != int64(dm.Files) || rows != dm.Rows || size != dm.Bytes {
		return fmt.Errorf("totals of %d files, %d rows and %d bytes, but its ranks hold %d files, %d rows and %d bytes", dm.Files, dm.Rows, dm.Bytes, files, rows, size)
	}
	return nil
}

// writeDatasetManifest writes dm to dir atomically, unless the file there
// already holds the same bytes. It first removes temporary files of the
// dataset manifest that a killed Commit left.
func (t *outputTree) writeDatasetManifest(dm *DatasetManifest) error {
	b, err := encodeRecord(dm)
	if err != nil {
		return err
	}
	if t.url != "" {
		return t.putDatasetManifest(b)
	}
	dir := t.dir
	final := filepath.Join(dir, datasetManifestName)
	if old, err := os.ReadFile(final); err == nil && bytes.Equal(old, b) {
		return nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "."+datasetManifestName+".tmp-") {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	f, err := createHidden(dir, datasetManifestName)
	if err != nil {
		return err
	}
	return replaceWith(f, b, final, "dataset manifest")
}
