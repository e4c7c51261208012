package shards

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/rowflow/rowflow/internal/io/objstore"
)

// Output in a bucket.
//
// An object store has no rename, so an output directory that is an
// s3://bucket/prefix URL is written without one: each data file is
// written, as on disk, to a hidden temporary file, here in a local
// staging directory (under os.TempDir; a killed run's is removed by the
// next run, see newStage), and, once complete, uploaded
// under its final key (in parts if it is large: only a completed upload
// is visible) and removed locally. The file becomes part of the dataset
// only through the rank's manifest, which the commit puts last, with a
// conditional write (see objstore.Put): readers that go through the
// manifests never see a partial run.
//
//   - prepare: with Overwrite, the rank's old manifest is removed first,
//     since the run's uploads replace its files under their keys: the old
//     output stops being part of the dataset when the run starts, not when
//     it commits. Without Overwrite, a manifest of another pipeline is
//     refused, as on disk. A progress record (Continue) that the run does
//     not continue from is removed.
//   - Continue: objects cannot be appended to or renamed, but a file is
//     uploaded under its final key as soon as it is complete, so the
//     progress record, put as the object .progress-<rank>.json after the
//     upload of each file it lists (step "progress put"), names complete
//     objects. A continuing run checks that they are there with their
//     sizes, keeps them and writes only the rest; a run that fails keeps
//     them and the record, and removes its other uploads.
//   - upload: a file that a committed manifest of the same pipeline lists
//     with the run's bytes, and whose object has its size, is not uploaded
//     again; one it lists with other bytes fails the run before anything is
//     replaced. Any other object under the key (left by a killed run, which
//     no manifest lists) is overwritten: deterministic output puts the same
//     bytes under the same keys.
//   - commit: the progress record is removed (with Continue); the
//     incomplete multipart uploads of the rank's keys (a killed run's) are
//     aborted; the rank's data objects that the run did not write are
//     removed (with Overwrite, or when no manifest lists them); one that a
//     committed manifest lists fails the run. Then the manifest is put,
//     unless the same bytes are there already.
//   - a failed or cancelled run removes, best effort, the objects it
//     uploaded and its staging directory, and leaves no manifest.
//
// There is no lock between two runs of one rank (flock has no bucket
// counterpart): the conditional put of the manifest makes the second
// commit fail, where the server honours it.

// isBucket reports whether the output is in a bucket.
func (o *outputDir) isBucket() bool { return o.url != "" }

// objectName returns the URL of the output's file rel.
func (o *outputDir) objectName(rel string) string { return o.url + "/" + rel }

// prepareBucket checks the rank's output in the bucket and makes the
// local staging directory.
func (o *outputDir) prepareBucket() error {
	ctx := o.context()
	if o.overwrite {
		if err := objstore.Delete(ctx, o.objectName(manifestName(o.rank))); err != nil {
			return fmt.Errorf("shards: %s: removing the old manifest: %w", o.what, err)
		}
	} else if err := o.checkExistingBucket(ctx); err != nil {
		return err
	}
	if o.continuing && o.manifest == nil {
		p, err := readProgressBucket(ctx, o.url, o.rank, o.ext)
		if err != nil {
			return fmt.Errorf("shards: %s: %w", o.what, err)
		}
		if p != nil && p.Fingerprint == o.fingerprint {
			o.progress = p
		}
	}
	if o.progress == nil {
		// A record this run does not continue from (of a run without
		// Continue now, of another pipeline, or whose files are gone):
		// the run starts over, and its commit removes the objects no
		// manifest lists.
		if err := objstore.Delete(ctx, o.objectName(progressName(o.rank))); err != nil {
			return fmt.Errorf("shards: %s: removing the old progress record: %w", o.what, err)
		}
	}
	stage, held, err := newStage()
	if err != nil {
		return fmt.Errorf("shards: %s: staging directory: %w", o.what, err)
	}
	o.root, o.stage = stage, held
	return nil
}

// checkExistingBucket reads what the bucket holds of the rank's output,
// as checkExisting does on disk.
func (o *outputDir) checkExistingBucket(ctx context.Context) error {
	files, err := o.rankObjects(ctx)
	if err != nil {
		return err
	}
	o.found = make(map[string]bool, len(files))
	for f := range files {
		o.found[f] = true
	}
	name := o.objectName(manifestName(o.rank))
	b, err := objstore.ReadAll(ctx, name, maxRecordBytes)
	switch {
	case errors.Is(err, objstore.ErrNoObject):
		return nil
	case err != nil:
		return fmt.Errorf("shards: %s: reading the manifest: %w", o.what, err)
	}
	m, err := o.acceptManifest(name, b, "bucket")
	if err != nil {
		return err
	}
	o.committed = make(map[string]ManifestFile, len(m.Files))
	for _, f := range m.Files {
		o.committed[f.Path] = f
	}
	return nil
}

// rankObjects returns the sizes of the rank's data objects by their
// paths relative to the output's prefix.
func (o *outputDir) rankObjects(ctx context.Context) (map[string]int64, error) {
	files := map[string]int64{}
	err := objstore.List(ctx, o.url+"/", func(name string, st objstore.Stamp) error {
		rel := strings.TrimPrefix(name, o.url+"/")
		if o.isRankFile(path.Base(rel)) {
			files[rel] = st.Size
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("shards: %s: listing the rank's objects: %w", o.what, err)
	}
	return files, nil
}

// context returns the context of the run's requests.
func (o *outputDir) context() context.Context {
	if o.ctx == nil {
		return context.Background()
	}
	return o.ctx
}

// setContext sets the context of the run's requests: one that the
// runtime's end of the run does not cancel (it ends the context given to
// Consume before it closes the sink, and a writer pool's goroutines
// upload after Consume has returned), but that the consumer cancels when
// the run fails (see watch and abortBucket).
func (o *outputDir) setContext(ctx context.Context) {
	o.ctx, o.cancel = context.WithCancel(context.WithoutCancel(ctx))
}

// watch cancels the run's requests if ctx, the context of a call of
// Consume, is cancelled before the returned function is called.
func (o *outputDir) watch(ctx context.Context) (stop func() bool) {
	if !o.isBucket() {
		return func() bool { return true }
	}
	return context.AfterFunc(ctx, o.cancel)
}

// upload puts the complete file f, written to its temporary name, under
// its final key and removes the temporary file. It does nothing for
// output on disk.
func (o *outputDir) upload(f *doneFile) error {
	if !o.isBucket() {
		return nil
	}
	ctx := o.context()
	name := o.objectName(f.Path)
	listed := false
	if c, ok := o.committed[f.Path]; ok {
		if c.SHA256 != f.SHA256 || c.Bytes != f.Bytes {
			return o.differs(f.Path, "this run wrote other bytes")
		}
		listed = true
		if st, err := objstore.Stat(ctx, name); err == nil && st.Size == f.Bytes {
			fsStep("kept " + f.Path)
			return o.dropTemp(f.temp)
		}
	}
	file, err := os.Open(f.temp)
	if err != nil {
		return err
	}
	if !listed {
		o.mu.Lock()
		o.uploaded = append(o.uploaded, name)
		o.mu.Unlock()
	}
	err = objstore.Put(ctx, name, &halfStep{ReaderAt: file, half: f.Bytes / 2, step: "uploading " + f.Path}, f.Bytes, false)
	file.Close()
	if err != nil {
		return err
	}
	fsStep("uploaded " + f.Path)
	return o.dropTemp(f.temp)
}

// dropTemp removes the temporary file p, which is uploaded.
func (o *outputDir) dropTemp(p string) error {
	o.mu.Lock()
	delete(o.temps, p)
	o.mu.Unlock()
	return os.Remove(p)
}

// commitBucket removes the rank's objects that the run did not write and
// puts the manifest m last (see "Output in a bucket"). The data files are
// uploaded already. If it fails, it removes what the run uploaded.
func (o *outputDir) commitBucket(files []doneFile, m *Manifest) (err error) {
	defer func() {
		if err != nil {
			err = errors.Join(err, o.abort())
		}
	}()
	ctx := o.context()
	b, err := m.encode()
	if err != nil {
		return fmt.Errorf("shards: %s: manifest: %w", o.what, err)
	}
	ours := make(map[string]bool, len(files))
	for _, f := range files {
		ours[f.Path] = true
	}
	there, err := o.rankObjects(ctx)
	if err != nil {
		return err
	}
	// Every file the manifest lists must be there, whole: an object
	// removed or replaced during the run (by a cleanup, or a run of the
	// rank with other options) fails the commit.
	for _, f := range files {
		if got, ok := there[f.Path]; !ok || got != f.Bytes {
			return fmt.Errorf("shards: %s: %s, uploaded by this run, is not there with its %d bytes (removed or replaced during the run: by rowflow cleanup, or another run of rank %d?)", o.what, o.objectName(f.Path), f.Bytes, o.rank)
		}
	}
	if o.continuing {
		if err := objstore.Delete(ctx, o.objectName(progressName(o.rank))); err != nil {
			return fmt.Errorf("shards: %s: removing the progress record: %w", o.what, err)
		}
		o.mu.Lock()
		o.progress = nil // a failure from here on removes what the run uploaded
		o.mu.Unlock()
	}
	for _, rel := range slices.Sorted(maps.Keys(there)) {
		if ours[rel] {
			continue
		}
		if _, ok := o.committed[rel]; ok {
			return o.differs(rel, "this run does not write it")
		}
		if err := objstore.Delete(ctx, o.objectName(rel)); err != nil {
			return fmt.Errorf("shards: %s: removing an object no manifest lists: %w", o.what, err)
		}
	}
	// A run killed during a multipart upload left its parts on the
	// server, under no object; the run's own uploads are complete.
	if err := objstore.AbortUploads(ctx, o.objectName(o.partPrefix())); err != nil {
		return fmt.Errorf("shards: %s: %w", o.what, err)
	}
	fsStep("stale removed")
	if !bytes.Equal(o.manifest, b) {
		name := o.objectName(manifestName(o.rank))
		if o.manifest != nil {
			if err := objstore.Delete(ctx, name); err != nil {
				return fmt.Errorf("shards: %s: removing the old manifest: %w", o.what, err)
			}
		}
		err := objstore.Put(ctx, name, bytes.NewReader(b), int64(len(b)), true)
		if errors.Is(err, objstore.ErrExists) {
			return fmt.Errorf("shards: %s: another run of rank %d committed while this one ran (%w); two runs of one rank at once are not supported", o.what, o.rank, err)
		}
		if err != nil {
			return fmt.Errorf("shards: %s: manifest: %w", o.what, err)
		}
		fsStep("manifest written")
	}
	o.uploaded = nil
	return o.removeStage()
}

// abortBucket removes, best effort, the objects the run uploaded and the
// staging directory.
func (o *outputDir) abortBucket() error {
	if o.cancel != nil {
		o.cancel() // uploads still under way
	}
	ctx := context.WithoutCancel(o.context())
	o.mu.Lock()
	up := o.uploaded
	o.uploaded = nil
	clear(o.temps)
	o.mu.Unlock()
	var errs []error
	for _, name := range up {
		if o.keepsObject(name) {
			continue // Continue: what the last progress record lists stays
		}
		if err := objstore.Delete(ctx, name); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, o.removeStage())
	return errors.Join(errs...)
}

// keepsObject reports whether the object name is a file that the rank's
// progress record (the one the run continues from, or the last it put)
// lists: an object that a run with Continue keeps when it fails.
func (o *outputDir) keepsObject(name string) bool {
	o.mu.Lock()
	p := o.progress
	o.mu.Unlock()
	if p == nil {
		return false
	}
	for _, f := range p.Files {
		if o.objectName(f.Path) == name {
			return true
		}
	}
	return false
}

// removeStage removes the local staging directory.
func (o *outputDir) removeStage() error {
	if o.root == "" {
		return nil
	}
	err := os.RemoveAll(o.root)
	if o.stage != nil {
		o.stage.Close()
		o.stage = nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("shards: %s: removing the staging directory: %w", o.what, err)
	}
	return nil
}

// halfStep calls fsStep(step) the first time a read reaches past half
// of the file, while it is being uploaded: the point where tests kill a
// run mid-upload.
type halfStep struct {
	io.ReaderAt
	half int64
	step string
	once sync.Once
}

func (h *halfStep) ReadAt(p []byte, off int64) (int, error) {
	n, err := h.ReaderAt.ReadAt(p, off)
	if off+int64(n) > h.half {
		h.once.Do(func() { fsStep(h.step) })
	}
	return n, err
}
