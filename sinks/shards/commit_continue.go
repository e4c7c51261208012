package shards

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/rowid"
)

// Continue makes a run of [Parquet] (or another shard sink)
// continuable: each time it completes a file, it records in the output
// directory the files it has completed, still under their temporary names,
// and the position in the pipeline's stream where that file ended (a
// flow.Checkpoint, which the sink takes itself). A run killed later is
// started again the same way, and continues by itself: [flow.Pipeline.Run]
// resumes it from the recorded position, it keeps those files and writes
// only the rest, and its output is byte for byte what an uninterrupted
// run writes.
//
//	err := p.To(shards.Parquet[T](dir, shards.Continue())).Run(ctx)
//
// A run with Continue that finds a record of the same pipeline
// (fingerprint) continues from it, and checks that the first row it
// writes is the row after the kept files. Without a record (none,
// another pipeline's, the rank's manifest there, or files missing), it
// starts over. A record that is damaged, edited, of an older format, or
// names a file that is not the rank's own temporary in the directory (see
// "Records and checksums" in the package documentation) is refused with an error that
// names it and what is wrong; the record and its files stay. A pipeline
// that was resumed (flow.Pipeline.Resume) and finds a record is an error:
// the start is said once. A run without Continue removes the record and
// the files it lists, and starts over.
//
// The record is the hidden file .progress-<rank>.json, written like the
// manifest (temporary name, fsync, rename, fsync of the directory) after
// the completed file was fsynced; it costs one such small write per file.
// The run's commit removes it first. A run that fails keeps the last
// record and the files it lists, and removes its other files: it can be
// continued like a killed one. Continue needs one writer ([Writers](1),
// the default) and no [PartitionBy]; a stage of the pipeline that keeps
// rows across partitions must report checkpoints ([flow.Checkpointer]),
// or the run fails at its first completed file.
//
// In a bucket (an s3:// output), where objects cannot be renamed, each
// file is uploaded under its final key once complete and the record is
// the object .progress-<rank>.json, put after that upload: a continuing
// run keeps the objects it lists (checked to be there with their sizes)
// and rewrites only the rest.
func Continue() Option {
	return shardOption(func(c *parquetConfig) error {
		c.continuing = true
		return nil
	})
}

// progressName returns the name of the rank's progress record.
func progressName(rank int) string { return fmt.Sprintf(".progress-%05d.json", rank) }

// progressVersion is the version of the progress record's format.
// Version 2 added the checksum; version 3 records the position as a
// checkpoint before the chunk the file ended in and the rows of it to
// skip.
const progressVersion = 3

// progress is the record of a continuable run: the files it completed and
// where the stream continues after them.
type progress struct {
	Version     int             `json:"version"`
	Fingerprint string          `json:"fingerprint"`
	Rank        int             `json:"rank"`
	Checkpoint  flow.Checkpoint `json:"checkpoint"`
	// NextID is the ID of the row after the last completed file: the
	// first row a continuing run must be given.
	NextID rowid.ID `json:"next_id"`
	// Skip is how many rows after Checkpoint's position the kept files
	// hold: a continuing run drops them, and its next row is NextID.
	Skip  int64          `json:"skip"`
	Files []progressFile `json:"files"`
	// Checksum is the checksum of the record's content (see the package
	// documentation's "Records and checksums").
	Checksum string `json:"checksum"`
}

func (p *progress) checksumField() *string { return &p.Checksum }

// progressFile is a completed file and the name of its temporary file in
// the output directory.
type progressFile struct {
	ManifestFile
	Temp string `json:"temp"`
}

// readProgress reads the rank's progress record in dir and checks it (see
// progress.check; ext, if not "", is the extension its data files must
// have), and that its files are there, with their sizes. It returns nil
// if there is no record, or if its files are not all there: the run
// starts over. A record that fails its checks is an error that names it
// and what is wrong.
func readProgress(dir string, rank int, ext string) (*progress, error) {
	root, err := os.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	b, err := readRecordIn(root, progressName(rank))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("progress record in %s: %w", dir, err)
	}
	p, err := decodeProgress(b, filepath.Join(dir, progressName(rank)), rank, ext)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error {
		return fmt.Errorf("progress record %s: %w; remove it to start the rank over", filepath.Join(dir, progressName(rank)), err)
	}
	for i, f := range p.Files {
		fi, err := root.Lstat(f.Temp)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil
		case err != nil:
			return nil, fail(fmt.Errorf("file %d: %w", i+1, err))
		case !fi.Mode().IsRegular():
			return nil, fail(fmt.Errorf("file %d: temporary file %s is %s, not a file the run wrote", i+1, f.Temp, fileKind(fi.Mode())))
		case fi.Size() != f.Bytes:
			return nil, nil
		}
	}
	return p, nil
}

// decodeProgress decodes the progress record b of rank, read from where,
// and checks it (see progress.check).
func decodeProgress(b []byte, where string, rank int, ext string) (*progress, error) {
	fail := func(err error) error {
		return fmt.Errorf("progress record %s: %w; remove it to start the rank over", where, err)
	}
	v, err := recordVersion(b)
	if err != nil {
		return nil, fail(err)
	}
	if v != progressVersion {
		return nil, fail(fmt.Errorf("format version %d, but this version of rowflow continues only from version %d", v, progressVersion))
	}
	var p progress
	if err := decodeRecord(b, &p); err != nil {
		return nil, fail(err)
	}
	if err := p.check(rank, ext); err != nil {
		return nil, fail(err)
	}
	return &p, nil
}

// readProgressBucket reads the rank's progress record in the bucket
// output url, as readProgress does on disk: the files it lists are the
// objects under their final keys (uploaded when they were complete,
// before the record that lists them was put), and each must be there
// with its size. The temporary names it lists are those the files were
// staged under, which no longer exist.
func readProgressBucket(ctx context.Context, url string, rank int, ext string) (*progress, error) {
	name := url + "/" + progressName(rank)
	b, err := objstore.ReadAll(ctx, name, maxRecordBytes)
	if errors.Is(err, objstore.ErrNoObject) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("progress record: %w", err)
	}
	p, err := decodeProgress(b, name, rank, ext)
	if err != nil {
		return nil, err
	}
	sizes := map[string]int64{}
	err = objstore.List(ctx, url+"/"+fmt.Sprintf("part-%05d-", rank), func(obj string, st objstore.Stamp) error {
		sizes[strings.TrimPrefix(obj, url+"/")] = st.Size
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("progress record %s: listing its files: %w", name, err)
	}
	for _, f := range p.Files {
		if size, ok := sizes[f.Path]; !ok || size != f.Bytes {
			return nil, nil
		}
	}
	return p, nil
}

// check checks the record's fields: it is the rank's, of a pipeline
// (fingerprint) whose checkpoint it holds, at a position after at least
// one item, and it lists at least one file; each is the next data file of
// the rank, in the directory itself (a run with Continue has one writer
// and no PartitionBy), with extension ext unless ext is "", and its
// temporary file is the hidden temporary file of that name in the
// directory. The error names the field or the entry.
func (p *progress) check(rank int, ext string) error {
	switch {
	case p.Rank != rank:
		return fmt.Errorf("it is the record of rank %d", p.Rank)
	case !isHex(p.Fingerprint, 32):
		return fmt.Errorf("fingerprint %q: want 32 hex digits", p.Fingerprint)
	case p.Skip < 0:
		return fmt.Errorf("it skips %d rows", p.Skip)
	case len(p.Files) == 0:
		return errors.New("it lists no file, but a record is written when a file is completed")
	}
	prefix := fmt.Sprintf("part-%05d-", rank)
	for i, f := range p.Files {
		entry := fmt.Sprintf("file %d", i+1)
		name := fmt.Sprintf("%s%05d", prefix, i)
		switch {
		case strings.ContainsAny(f.Temp, "/\\") || checkLocal(f.Temp) != nil ||
			!strings.HasPrefix(f.Temp, "."+prefix) || !strings.Contains(f.Temp, ".tmp-"):
			return fmt.Errorf("%s: temporary name %q is not that of a hidden temporary file of rank %d in the directory (.%s….tmp-…): it could lead outside it", entry, f.Temp, rank, prefix)
		case checkLocal(f.Path) != nil:
			return fmt.Errorf("%s: path %q %v", entry, f.Path, checkLocal(f.Path))
		case strings.Contains(f.Path, "/") || !strings.HasPrefix(f.Path, name+".") || ext != "" && f.Path != name+ext:
			return fmt.Errorf("%s: path %q is not the name of the rank's data file %d in the directory (%s%s)", entry, f.Path, i+1, name, ext)
		case !strings.HasPrefix(f.Temp, "."+f.Path+".tmp-"):
			return fmt.Errorf("%s: temporary name %q is not that of a temporary file of %s", entry, f.Temp, f.Path)
		case f.Writer != 0 || f.Seq != i:
			return fmt.Errorf("%s: writer %d and sequence number %d, but a run with Continue has one writer, whose file %d has sequence number %d", entry, f.Writer, f.Seq, i+1, i)
		case f.Rows < 0 || f.Bytes < 0:
			return fmt.Errorf("%s: negative count: rows %d, bytes %d", entry, f.Rows, f.Bytes)
		case !isHex(f.SHA256, 64):
			return fmt.Errorf("%s: SHA-256 %q: want 64 hex digits", entry, f.SHA256)
		case len(f.Partition) != 0:
			return fmt.Errorf("%s: partition values, but a run with Continue has no PartitionBy", entry)
		}
	}
	return nil
}

// continuableSink is the stage of a shard sink with Continue: its
// Continuation tells the run where to start (flow.SinkStage).
type continuableSink[T any] struct{ *parquetSink[T] }

// Continuation returns the position from which the run of env's rank
// continues, as the sink recorded it when it completed its last file, and
// whether there is one: none if the run recorded nothing, if the rank has
// committed (its manifest is there), if the record is another pipeline's
// (the run then starts over and removes it), or if the files it lists are
// not all there.
func (s continuableSink[T]) Continuation(env flow.Env) (flow.Checkpoint, bool, error) {
	dir := s.plan.dir
	if objstore.IsURL(dir) {
		return s.bucketContinuation(env)
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName(env.Rank))); err == nil {
		return flow.Checkpoint{}, false, nil
	}
	p, err := readProgress(dir, env.Rank, "")
	if err != nil {
		return flow.Checkpoint{}, false, fmt.Errorf("shards: %s: %w", s.plan.what, err)
	}
	if p == nil || p.Fingerprint != env.Fingerprint {
		return flow.Checkpoint{}, false, nil
	}
	return p.Checkpoint, true, nil
}

// bucketContinuation is Continuation for output in a bucket.
func (s continuableSink[T]) bucketContinuation(env flow.Env) (flow.Checkpoint, bool, error) {
	ctx := context.Background()
	url := strings.TrimSuffix(s.plan.dir, "/")
	_, err := objstore.Stat(ctx, url+"/"+manifestName(env.Rank))
	switch {
	case err == nil:
		return flow.Checkpoint{}, false, nil
	case !errors.Is(err, objstore.ErrNoObject):
		return flow.Checkpoint{}, false, fmt.Errorf("shards: %s: %w", s.plan.what, err)
	}
	p, err := readProgressBucket(ctx, url, env.Rank, "")
	if err != nil {
		return flow.Checkpoint{}, false, fmt.Errorf("shards: %s: %w", s.plan.what, err)
	}
	if p == nil || p.Fingerprint != env.Fingerprint {
		return flow.Checkpoint{}, false, nil
	}
	return p.Checkpoint, true, nil
}

// continuation is the Continue side of one run: it records the progress
// record after each completed file and checks, when the run continues
// one, its first row. A nil continuation does nothing.
type continuation struct {
	env     flow.Env
	out     *outputDir
	skip    int64          // rows a continuing run drops first
	expect  *rowid.ID      // the first row a continuing run must write
	pending []progressFile // files completed at the end of the last chunk
}

// resume sets up a run that continues from the record p: the rank's
// files so far are p's, whose temporary files the run keeps.
func (c *continuation) resume(p *progress) []doneFile {
	c.expect, c.skip = &p.NextID, p.Skip
	files := make([]doneFile, len(p.Files))
	for i, f := range p.Files {
		files[i] = doneFile{ManifestFile: f.ManifestFile, temp: filepath.Join(c.out.root, f.Temp)}
	}
	return files
}

// skipKept returns the part of ch that a continuing run writes, without
// the rows that the kept files hold (the run's first c.skip rows), and
// how many rows of ch it dropped.
func skipKept[T any](c *continuation, ch *flow.Chunk[T]) (flow.Chunk[T], int) {
	kept := *ch
	if c.skip == 0 {
		return kept, 0
	}
	k := int(min(c.skip, int64(ch.Len())))
	c.skip -= int64(k)
	kept.Values, kept.IDs = ch.Values[k:], ch.IDs.Slice(k, ch.Len())
	return kept, k
}

// next is called with the first row ID of each chunk that has values,
// before the chunk is written. It checks the first row of a continuing
// run, and records the files completed at the end of the chunk before,
// now that the next row is known.
func (c *continuation) next(id rowid.ID) error {
	if c == nil {
		return nil
	}
	if c.expect != nil {
		if id != *c.expect {
			return fmt.Errorf("shards: %s: the run does not continue where %s says: its first row is %s, the row after the files kept is %s; was the pipeline resumed from elsewhere? Remove the record to start over",
				c.out.what, progressName(c.out.rank), id, *c.expect)
		}
		c.expect = nil
	}
	if c.pending == nil {
		return nil
	}
	ck, err := c.env.Checkpoint()
	if err != nil {
		return fmt.Errorf("shards: %s: Continue: %w", c.out.what, err)
	}
	files := c.pending
	c.pending = nil
	return c.record(ck, 0, id, files)
}

// sealed is called after a chunk was written, during which files ended
// after the rows at the offsets ends of what was written of it; ids are
// the row IDs written, dropped how many rows of the chunk came before
// them (skipKept), and done the files completed so far.
func (c *continuation) sealed(ends []int, ids flow.IDs, dropped int, done []doneFile) error {
	if c == nil || len(ends) == 0 {
		return nil
	}
	files := make([]progressFile, len(done))
	for i, f := range done {
		files[i] = progressFile{ManifestFile: f.ManifestFile, Temp: filepath.Base(f.temp)}
	}
	j := ends[len(ends)-1]
	if j == ids.Len() {
		c.pending = files // recorded when the next row is known
		return nil
	}
	// The run's position is still before this chunk, of which the file
	// holds j rows: a continuing run resumes there and skips them.
	ck, err := c.env.Checkpoint()
	if err != nil {
		return fmt.Errorf("shards: %s: Continue: %w", c.out.what, err)
	}
	c.pending = nil
	return c.record(ck, int64(dropped+j), ids.At(j), files)
}

// record writes the progress record.
func (c *continuation) record(ck flow.Checkpoint, skip int64, next rowid.ID, files []progressFile) error {
	p := progress{Version: progressVersion, Fingerprint: c.out.fingerprint, Rank: c.out.rank,
		Checkpoint: ck, NextID: next, Skip: skip, Files: files}
	b, err := encodeRecord(&p)
	if err == nil && c.out.isBucket() {
		// The files it lists are uploaded already (see upload).
		err = objstore.Put(c.out.context(), c.out.objectName(progressName(c.out.rank)), bytes.NewReader(b), int64(len(b)), false)
		if err == nil {
			fsStep("progress put")
		}
	} else if err == nil {
		var f *os.File
		if f, err = createHidden(c.out.root, progressName(c.out.rank)); err == nil {
			err = replaceWith(f, b, filepath.Join(c.out.root, progressName(c.out.rank)), "progress")
		}
	}
	if err != nil {
		return fmt.Errorf("shards: %s: recording progress: %w", c.out.what, err)
	}
	c.out.mu.Lock()
	c.out.progress = &p
	c.out.mu.Unlock()
	return nil
}
