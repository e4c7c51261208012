package shards

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/rowflow/rowflow/internal/io/objstore"
)

// outputDir is the file-system side of one run of Parquet: the
// directories the run created, the temporary files it holds, and the
// commit that gives them their final names. It is safe for concurrent use
// by the writers' goroutines.
type outputDir struct {
	root        string          // the directory; in a bucket, the local staging directory
	url         string          // in a bucket: the output's s3:// URL, without a final "/"
	ctx         context.Context // in a bucket: see setContext
	cancel      context.CancelFunc
	what        string // the sink and directory, for errors: Parquet("out")
	ext         string // the data files' extension: ".parquet", ".jsonl.zst", …
	rank        int
	overwrite   bool
	fingerprint string // the run's pipeline fingerprint

	// What prepare found of the rank's output, without Overwrite (see
	// checkExisting): the data files under final names, and the
	// committed manifest's bytes if there is one.
	found    map[string]bool
	manifest []byte
	lockFile *os.File // held from prepare to the end of commit or abort
	stage    *os.File // in a bucket: holds the staging directory (see newStage)

	// With Continue: the progress record the run continues from, if any
	// (its files are kept), and whether the directory may hold a record
	// of the run to remove.
	continuing bool
	progress   *progress

	// In a bucket: the files that a committed manifest of the same
	// pipeline lists (without Overwrite), and the objects the run put.
	committed map[string]ManifestFile
	uploaded  []string

	mu      sync.Mutex
	known   map[string]bool // directories known to exist
	created []string        // directories this run created, parents first
	temps   map[string]bool // temporary files not yet renamed or removed
}

func newOutputDir(what, ext, root string, rank int, overwrite bool, fingerprint string) *outputDir {
	o := &outputDir{what: what, ext: ext, root: root, rank: rank, overwrite: overwrite, fingerprint: fingerprint,
		known: map[string]bool{}, temps: map[string]bool{}}
	if objstore.IsURL(root) {
		o.root, o.url = "", strings.TrimSuffix(root, "/")
	}
	return o
}

// partPrefix is the start of the names of the rank's data files.
func (o *outputDir) partPrefix() string { return fmt.Sprintf("part-%05d-", o.rank) }

// isRankFile reports whether name is a data file name of the rank.
func (o *outputDir) isRankFile(name string) bool {
	return strings.HasPrefix(name, o.partPrefix()) && strings.HasSuffix(name, o.ext)
}

// isRankTemp reports whether name is a temporary file name of the rank:
// a data file's or the manifest's (see createTemp).
func (o *outputDir) isRankTemp(name string) bool {
	return strings.HasPrefix(name, "."+o.partPrefix()) && strings.Contains(name, o.ext+".tmp-") ||
		strings.HasPrefix(name, "."+manifestName(o.rank)+".tmp-") ||
		name == progressName(o.rank) || strings.HasPrefix(name, "."+progressName(o.rank)+".tmp-")
}

// prepare creates the directory, takes the rank's lock (see lock), checks,
// unless the run may overwrite, what the directory holds of the rank's
// output (see checkExisting), and removes the rank's temporary files that
// an earlier run, killed before it could, left behind.
func (o *outputDir) prepare() error {
	if o.isBucket() {
		return o.prepareBucket()
	}
	if _, err := o.ensureDir(""); err != nil {
		return err
	}
	if err := o.lock(); err != nil {
		return err
	}
	if !o.overwrite {
		if err := o.checkExisting(); err != nil {
			return err
		}
	}
	if o.continuing && o.manifest == nil {
		p, err := readProgress(o.root, o.rank, o.ext)
		if err != nil {
			return fmt.Errorf("shards: %s: %w", o.what, err)
		}
		if p != nil && p.Fingerprint == o.fingerprint {
			o.progress = p
		}
	}
	return o.removeStaleTemps()
}

// removeStaleTemps removes the rank's temporary files under the
// directory, and syncs the directories it changed.
func (o *outputDir) removeStaleTemps() error {
	touched := map[string]bool{}
	err := filepath.WalkDir(o.root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.Type().IsRegular() && o.isRankTemp(d.Name()) && !o.keeps(p):
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			touched[filepath.Dir(p)] = true
		}
		return nil
	})
	if err == nil {
		err = errors.Join(syncDirs(touched)...)
	}
	if err != nil {
		return fmt.Errorf("shards: %s: removing stale temporary files: %w", o.what, err)
	}
	return nil
}

// keeps reports whether the file at p is one that the rank's progress
// record (the one the run continues from, or the last it wrote) lists, or
// the record itself: files that a run with Continue keeps.
func (o *outputDir) keeps(p string) bool {
	if o.progress == nil || filepath.Dir(p) != filepath.Clean(o.root) {
		return false
	}
	name := filepath.Base(p)
	if name == progressName(o.rank) {
		return true
	}
	for _, f := range o.progress.Files {
		if f.Temp == name {
			return true
		}
	}
	return false
}

// removeProgress removes the rank's progress record, if the run may have
// one, and makes its removal durable.
func (o *outputDir) removeProgress() error {
	if !o.continuing {
		return nil
	}
	err := os.Remove(filepath.Join(o.root, progressName(o.rank)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = syncDir(o.root)
	}
	return err
}

// rankFiles returns the slash-separated relative paths of the rank's data
// files under the directory, sorted; none if the directory does not exist.
func (o *outputDir) rankFiles() ([]string, error) {
	var files []string
	err := filepath.WalkDir(o.root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && p == o.root && errors.Is(err, fs.ErrNotExist):
			return fs.SkipAll
		case err != nil:
			return err
		case d.Type().IsRegular() && o.isRankFile(d.Name()):
			rel, err := filepath.Rel(o.root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("shards: %s: listing the directory: %w", o.what, err)
	}
	slices.Sort(files)
	return files, nil
}

// ensureDir creates the directory rel (slash-separated, relative to the
// root) and its missing parents, remembering those it created, and
// returns its path.
func (o *outputDir) ensureDir(rel string) (string, error) {
	dir := filepath.Join(o.root, filepath.FromSlash(rel))
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.known[dir] {
		return dir, nil
	}
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return "", fmt.Errorf("shards: %s: %s is not a directory", o.what, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("shards: %s: %w", o.what, err)
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range slices.Backward(missing) {
		if err := os.Mkdir(d, 0o777); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			return "", fmt.Errorf("shards: %s: %w", o.what, err)
		}
		o.created = append(o.created, d)
	}
	o.known[dir] = true
	return dir, nil
}

// createTemp creates a temporary file for the file name in dir (see
// createHidden) and remembers it, to remove it if the run fails.
func (o *outputDir) createTemp(dir, name string) (*os.File, error) {
	f, err := createHidden(dir, name)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	o.temps[f.Name()] = true
	o.mu.Unlock()
	fsStep("created " + o.rel(filepath.Join(dir, name)))
	return f, nil
}

// createHidden creates a temporary file for the file name in dir: a
// hidden file named .<name>.tmp-<random>, which dataset discovery skips,
// with mode 0644 less the umask, as os.Create gives (os.CreateTemp's 0600
// would keep other users from reading the output).
func createHidden(dir, name string) (*os.File, error) {
	var f *os.File
	var err error
	for range 100 {
		p := filepath.Join(dir, "."+name+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err = os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return f, err
}

// rel returns the slash-separated path of p relative to the root.
func (o *outputDir) rel(p string) string {
	r, err := filepath.Rel(o.root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// abort removes every temporary file of the run and the directories it
// created, if they are empty, then syncs the directories it changed. It
// returns the first error other than a missing file.
func (o *outputDir) abort() error {
	if o.isBucket() {
		return o.abortBucket()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var errs []error
	touched := map[string]bool{}
	for _, t := range slices.Sorted(maps.Keys(o.temps)) {
		if o.keeps(t) {
			continue // Continue: what the last progress record lists stays
		}
		if err := os.Remove(t); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		touched[filepath.Dir(t)] = true
	}
	clear(o.temps)
	if o.lockFile != nil {
		touched[o.root] = true
	}
	errs = append(errs, o.unlock())
	errs = append(errs, o.removeCreated(touched)...)
	errs = append(errs, syncDirs(touched)...)
	return errors.Join(errs...)
}

// removeCreated removes the directories the run created, deepest first,
// if they are empty, and adds their parents to touched.
func (o *outputDir) removeCreated(touched map[string]bool) []error {
	var errs []error
	for _, d := range slices.Backward(o.created) {
		err := os.Remove(d)
		switch {
		case err == nil:
			delete(touched, d)
			touched[filepath.Dir(d)] = true
		case errors.Is(err, fs.ErrNotExist):
		case isNotEmpty(err):
			// Someone else put a file there: leave it.
		default:
			errs = append(errs, err)
		}
	}
	o.created = nil
	clear(o.known)
	return errs
}

// doneFile is a data file written completely to its temporary name.
type doneFile struct {
	ManifestFile
	temp string
}

// fsStep is called at the steps of a run's work on the file system, with
// the step's name: "created <path>" when a temporary file is created for
// the data file or manifest path, then, during the commit, "manifest
// removed", "kept <path>" or "renamed <path>" for each data file, "stale
// removed", "synced", "manifest written" (under its temporary name) and
// "manifest renamed"; in a bucket, "uploading <path>" when half of a
// file's bytes are read for its upload, "uploaded <path>" or "kept
// <path>", "stale removed" and "manifest written". Tests set it to stop a process at a step; it does
// nothing otherwise. It may be called from several goroutines at once.
var fsStep = func(step string) {}

// commit gives the files their final names, removes, with Overwrite, the
// rank's old files it did not replace, syncs the directories, and writes
// the manifest m last. If it fails, it removes what the run wrote.
//
// Without Overwrite, it first checks the rank's output already on disk
// against the run's (see checkRerun): a file already there with the
// run's bytes is kept, and the run's temporary copy removed; any other
// file is an error, found before anything changes. A manifest already
// there with the run's bytes is kept too: a rerun of a committed rank
// that writes the same output changes nothing.
//
// With Overwrite, the old manifest is removed, and its removal made
// durable, before any old file is replaced or removed: whenever the
// commit stops, by an error or by the process being killed, a manifest
// on disk describes exactly the files on disk (the old ones, until the
// first step, or the new ones, once written last), or there is none.
func (o *outputDir) commit(files []doneFile, m *Manifest) (err error) {
	if o.isBucket() {
		return o.commitBucket(files, m)
	}
	var renamed []string
	defer func() {
		if err != nil {
			for _, p := range renamed {
				os.Remove(p)
			}
			err = errors.Join(err, o.abort())
		}
	}()
	b, err := m.encode()
	if err != nil {
		return fmt.Errorf("shards: %s: manifest: %w", o.what, err)
	}
	var keep map[string]bool
	if o.overwrite {
		if err := o.removeManifest(); err != nil {
			return err
		}
	} else if keep, err = o.checkRerun(files); err != nil {
		return err
	}
	if err := o.removeProgress(); err != nil {
		return fmt.Errorf("shards: %s: %w", o.what, err)
	}
	fsStep("manifest removed")
	// The files are renamed and removed through root: a path that leads
	// outside the directory (a link in it) is refused.
	root, err := os.OpenRoot(o.root)
	if err != nil {
		return fmt.Errorf("shards: %s: %w", o.what, err)
	}
	defer root.Close()
	dirs := map[string]bool{o.root: true}
	for _, f := range files {
		final := filepath.Join(o.root, filepath.FromSlash(f.Path))
		temp := filepath.FromSlash(o.rel(f.temp))
		if keep[f.Path] {
			if err := root.Remove(temp); err != nil {
				return fmt.Errorf("shards: %s: %w", o.what, err)
			}
			fsStep("kept " + f.Path)
		} else {
			if err := root.Rename(temp, filepath.FromSlash(f.Path)); err != nil {
				return fmt.Errorf("shards: %s: %w", o.what, err)
			}
			renamed = append(renamed, final)
			fsStep("renamed " + f.Path)
		}
		o.mu.Lock()
		delete(o.temps, f.temp)
		o.mu.Unlock()
		dirs[filepath.Dir(final)] = true
	}
	if o.overwrite {
		if err := o.removeStale(files, dirs); err != nil {
			return err
		}
	}
	fsStep("stale removed")
	for _, d := range o.created {
		dirs[filepath.Dir(d)] = true
	}
	if err := errors.Join(syncDirs(dirs)...); err != nil {
		return fmt.Errorf("shards: %s: %w", o.what, err)
	}
	fsStep("synced")
	if o.manifest == nil || !bytes.Equal(o.manifest, b) {
		if err := o.writeManifest(b); err != nil {
			return err
		}
	}
	if err := o.unlock(); err != nil {
		return fmt.Errorf("shards: %s: %w", o.what, err)
	}
	return nil
}

// removeManifest removes the rank's manifest, if there is one, and makes
// its removal durable.
func (o *outputDir) removeManifest() error {
	err := os.Remove(filepath.Join(o.root, manifestName(o.rank)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = syncDir(o.root)
	}
	if err != nil {
		return fmt.Errorf("shards: %s: removing the old manifest: %w", o.what, err)
	}
	return nil
}

// removeStale removes the rank's data files that files does not list.
func (o *outputDir) removeStale(files []doneFile, dirs map[string]bool) error {
	keep := make(map[string]bool, len(files))
	for _, f := range files {
		keep[f.Path] = true
	}
	old, err := o.rankFiles()
	if err != nil {
		return err
	}
	for _, rel := range old {
		if keep[rel] {
			continue
		}
		p := filepath.Join(o.root, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("shards: %s: removing old output: %w", o.what, err)
		}
		dirs[filepath.Dir(p)] = true
	}
	return nil
}

// writeManifest writes the manifest b under a temporary name, syncs it,
// renames it and syncs the directory: the rename is the rank's commit
// point.
func (o *outputDir) writeManifest(b []byte) error {
	name := manifestName(o.rank)
	f, err := o.createTemp(o.root, name)
	if err == nil {
		o.mu.Lock()
		delete(o.temps, f.Name()) // replaceWith removes it if it fails
		o.mu.Unlock()
		err = replaceWith(f, b, filepath.Join(o.root, name), "manifest")
	}
	if err != nil {
		return fmt.Errorf("shards: %s: manifest: %w", o.what, err)
	}
	return nil
}

// replaceWith writes b to the new temporary file f, syncs and closes it,
// renames it to final and syncs final's directory. If it fails, it
// removes f. The steps are named what+" written" and what+" renamed".
func replaceWith(f *os.File, b []byte, final, what string) error {
	_, err := f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		fsStep(what + " written")
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	fsStep(what + " renamed")
	return syncDir(filepath.Dir(final))
}

// syncDirs syncs the directories that exist among dirs, in sorted order.
func syncDirs(dirs map[string]bool) []error {
	var errs []error
	for _, d := range slices.Sorted(maps.Keys(dirs)) {
		if err := syncDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errs
}

// syncDir makes the entries of directory d durable. File systems that
// cannot sync a directory are not an error.
func syncDir(d string) error {
	f, err := os.Open(d)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return err
}

func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

// slashJoin joins a partition directory and a file name.
func slashJoin(dir, name string) string {
	if dir == "" {
		return name
	}
	return path.Join(dir, name)
}
