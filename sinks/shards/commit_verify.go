package shards

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/lineage"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/rowid"
)

// VerifyManifest reads the manifest of rank in dir, from 0 to 65535 (a
// job has at most 65536 processes), and checks it against the files on
// disk: every file it lists is there, with its size, SHA-256
// and row count, and, when the files hold the row-ID column
// ([RowIDColumn]), its first and last row IDs; and the rank has no data
// file under dir that the manifest does not list (dataset discovery would
// read it). It returns the manifest, and an error that names the rank and
// each file that does not match (up to ten of them). A missing manifest
// gives an error that satisfies errors.Is(err, fs.ErrNotExist). The
// manifest is checked as "Records and checksums" in the package
// documentation says, and a file it lists is read only inside dir, and
// only if it is a regular file.
//
// It reads every file once to hash it, and, for the row count and IDs,
// the footer and the row-ID columns again; files are checked in parallel,
// up to GOMAXPROCS at a time.
func VerifyManifest(dir string, rank int) (*Manifest, error) {
	fail := func(err error) error { return fmt.Errorf("shards: VerifyManifest(%q): %w", dir, err) }
	if rank < 0 || rank >= limits.MaxWorld {
		return nil, fail(fmt.Errorf("rank %d: must be from 0 to %d", rank, limits.MaxWorld-1))
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
	m, err := readRankManifest(root, rank)
	if err != nil {
		return nil, fail(err)
	}
	if err := joinFirst(checkRanks(root, []*Manifest{m}, out, nil)); err != nil {
		return m, fail(err)
	}
	return m, nil
}

// readRankManifest reads the manifest of rank in dir, through root, and
// checks that it is that rank's; it records the SHA-256 of its bytes in
// the manifest (see Manifest.sum). The manifest must be a regular file.
// Its errors name the rank and have no package prefix.
func readRankManifest(root *outputTree, rank int) (*Manifest, error) {
	name := manifestName(rank)
	b, err := root.readRecord(name)
	if err != nil {
		return nil, fmt.Errorf("rank %d: %w", rank, err)
	}
	m, err := decodeManifest(root.join(name), b, rank)
	if err != nil {
		return nil, fmt.Errorf("rank %d: %w", rank, err)
	}
	h := sha256.Sum256(b)
	m.sum = hex.EncodeToString(h[:])
	return m, nil
}

// output is what scanOutput finds in an output directory: the data files
// of each rank, by slash-separated path, sorted, the ranks that have a
// manifest, and the other files that a reader of the directory would
// read as data (stray), sorted.
type output struct {
	files     map[int][]string
	manifests []int
	stray     []string
}

// scanOutput lists what dir holds as a reader of it finds it, the way
// internal/io/dataset's discovery (which the sources use) walks a directory:
// names starting with "." or "_" below dir are skipped, so the hidden
// temporary files of runs, their locks and the manifests are not data.
// It lists the ranks' manifests (_manifest-<rank>.json, in the
// directory), the data files of the ranks (part-<rank>-<seq>.<ext>, in
// the directory or below it), and the other files that a source would
// take as data (see isDataName); a link to a directory, which discovery
// follows, is listed among those too.
func scanOutput(dir string) (*output, error) {
	out := &output{files: map[int][]string{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if r, ok := manifestRank(rel); ok && d.Type().IsRegular() {
			out.manifests = append(out.manifests, r)
			return nil
		}
		switch {
		case dataset.Hidden(d.Name()) && d.IsDir():
			return filepath.SkipDir
		case dataset.Hidden(d.Name()) || d.IsDir():
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				out.stray = append(out.stray, rel+" (a link to a directory, which readers search)")
				return nil
			}
		}
		if r, ok := dataFileRank(d.Name()); ok {
			out.files[r] = append(out.files[r], rel)
		} else if isDataName(d.Name()) {
			out.stray = append(out.stray, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the directory: %w", err)
	}
	out.sort()
	return out, nil
}

// sort sorts the lists of out.
func (out *output) sort() {
	for _, fs := range out.files {
		slices.Sort(fs)
	}
	slices.Sort(out.manifests)
	slices.Sort(out.stray)
}

// dataSuffixes are the names that the sources take as data in a
// directory: Parquet files, and CSV and JSON Lines files compressed or
// not.
var dataSuffixes = slices.Concat(dataset.Parquet.Suffixes, dataset.CSV.Suffixes, dataset.JSONL.Suffixes)

// isDataName reports whether a source reading a directory takes a file of
// that name as data.
func isDataName(name string) bool {
	for _, s := range dataSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// dataFileRank returns the rank of a data file name, part-<rank>-<seq>.<ext>.
func dataFileRank(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "part-")
	if !ok {
		return 0, false
	}
	rank, rest, ok := strings.Cut(rest, "-")
	seq, ext, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || !allDigits(rank) || !allDigits(seq) || ext == "" {
		return 0, false
	}
	r, err := strconv.Atoi(rank)
	return r, err == nil
}

// manifestRank returns the rank of a rank's manifest, _manifest-<rank>.json
// at the top of the directory.
func manifestRank(rel string) (int, bool) {
	rest, ok := strings.CutPrefix(rel, "_manifest-")
	if !ok {
		return 0, false
	}
	rank, ok := strings.CutSuffix(rest, ".json")
	if !ok || !allDigits(rank) {
		return 0, false
	}
	r, err := strconv.Atoi(rank)
	return r, err == nil
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// fileCheck is one data file to check, of the manifest of rank.
type fileCheck struct {
	rank int
	m    *Manifest
	f    *ManifestFile
}

func (c fileCheck) errorf(format string, args ...any) error {
	return fmt.Errorf("rank %d: %s: %s", c.rank, c.f.Path, fmt.Sprintf(format, args...))
}

// checkRanks checks the manifests ms against the files of dir (listed in
// out): each rank's files must be what its manifest lists (see
// VerifyManifest). When ids is not nil, it is called with the row IDs of
// every file that holds the row-ID column, from several goroutines but
// one at a time. It returns the errors, in rank and file order.
func checkRanks(root *outputTree, ms []*Manifest, out *output, ids func([]rowid.ID)) []error {
	var errs []error
	var checks []fileCheck
	for _, m := range ms {
		listed := map[string]bool{}
		for i := range m.Files {
			listed[m.Files[i].Path] = true
			checks = append(checks, fileCheck{rank: m.Rank, m: m, f: &m.Files[i]})
		}
		for _, rel := range out.files[m.Rank] {
			if !listed[rel] {
				errs = append(errs, fmt.Errorf("rank %d: %s is a data file of the rank that its manifest does not list", m.Rank, rel))
			}
		}
	}
	results := make([]error, len(checks))
	var report func([]rowid.ID)
	if ids != nil {
		var mu sync.Mutex
		report = func(b []rowid.ID) {
			mu.Lock()
			defer mu.Unlock()
			ids(b)
		}
	}
	forEach(len(checks), func(i int) { results[i] = checkFile(root, checks[i], report) })
	for _, err := range results {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// forEach calls f(0), …, f(n-1) from up to GOMAXPROCS goroutines.
func forEach(n int, f func(int)) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// checkFile checks one data file against its manifest entry, reading it
// through root: size, SHA-256, row count and, with the row-ID column, its
// first and last IDs, which it passes to ids if not nil.
func checkFile(root *outputTree, c fileCheck, ids func([]rowid.ID)) error {
	f, err := root.open(c.f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return c.errorf("listed in the manifest, but not in the directory")
	case err != nil:
		return c.errorf("%v", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.NewSectionReader(f, 0, f.Size()))
	sum := hex.EncodeToString(h.Sum(nil))
	switch {
	case err != nil:
		return c.errorf("%v", err)
	case n != c.f.Bytes:
		return c.errorf("%d bytes, the manifest says %d", n, c.f.Bytes)
	case sum != c.f.SHA256:
		return c.errorf("SHA-256 %s, the manifest says %s", sum, c.f.SHA256)
	}
	rows, first, last, err := fileRowIDs(f, n, c.f.Path, c.m, ids)
	switch {
	case err != nil:
		return c.errorf("%v", err)
	case rows != c.f.Rows:
		return c.errorf("%d rows, the manifest says %d", rows, c.f.Rows)
	case c.m.RowIDColumn != "" && rows > 0 && (first != c.f.FirstID || last != c.f.LastID):
		return c.errorf("row IDs %s to %s, the manifest says %s to %s", first, last, c.f.FirstID, c.f.LastID)
	}
	return nil
}

// listedRowIDs opens the file rel that m lists, through root, and reads
// its row IDs as fileRowIDs does.
func listedRowIDs(root *outputTree, rel string, m *Manifest, ids func([]rowid.ID)) error {
	f, err := root.open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	_, _, _, err = fileRowIDs(f, f.Size(), rel, m, ids)
	return err
}

// parquetRowIDs returns the number of rows of the Parquet file f of size
// bytes (rel in errors) and, when idColumn is not "", the IDs of its first
// and last rows, read from the row-ID columns (idColumn_key1, _key2 and
// _ord, or idColumn_hi and _lo as files written before the three columns
// hold them); ids, if not nil, is called with the IDs of each row group.
func parquetRowIDs(f io.ReaderAt, size int64, rel, idColumn string, ids func([]rowid.ID)) (rows int64, first, last rowid.ID, err error) {
	r, err := pqcol.Open(rel, f, size)
	if err != nil {
		return 0, first, last, err
	}
	if idColumn == "" {
		return r.File().NumRows(), first, last, nil
	}
	names := rowIDNames(idColumn)
	decode := func(v [][]int64, k int) rowid.ID {
		return RowID(uint64(v[0][k]), uint64(v[1][k]), uint64(v[2][k]))
	}
	if _, ok := r.LookupLeaf(names[0]); !ok {
		names = []string{idColumn + lineage.Hi, idColumn + lineage.Lo}
		decode = func(v [][]int64, k int) rowid.ID { return rowid.ID{Hi: uint64(v[0][k]), Lo: uint64(v[1][k])} }
	}
	leaves := make([]int, len(names))
	for i, n := range names {
		var ok bool
		if leaves[i], ok = r.LookupLeaf(n); !ok {
			return 0, first, last, fmt.Errorf("no row-ID columns %s (nor %s)", strings.Join(rowIDNames(idColumn), ", "), strings.Join(names, ", "))
		}
	}
	cols := make([]pqcol.Column, len(names))
	vals := make([][]int64, len(names))
	var buf []rowid.ID
	for rg := range r.NumRowGroups() {
		n := r.NumRows(rg)
		for i := range cols {
			if err := r.ReadColumn(context.Background(), rg, leaves[i], &cols[i]); err != nil {
				return 0, first, last, err
			}
			if vals[i] = cols[i].Int64; int64(len(vals[i])) != n {
				return 0, first, last, fmt.Errorf("row group %d: %d rows, but %d values of %s", rg, n, len(vals[i]), names[i])
			}
		}
		buf = buf[:0]
		for k := range n {
			buf = append(buf, decode(vals, int(k)))
		}
		if len(buf) > 0 {
			if rows == 0 {
				first = buf[0]
			}
			last = buf[len(buf)-1]
		}
		rows += n
		if ids != nil {
			ids(buf)
		}
	}
	return rows, first, last, nil
}

// joinFirst joins up to ten errors, and says how many more there are.
func joinFirst(errs []error) error {
	const most = 10
	if len(errs) > most {
		errs = append(errs[:most:most], fmt.Errorf("and %d more", len(errs)-most))
	}
	return errors.Join(errs...)
}
