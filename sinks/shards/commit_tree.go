package shards

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/objstore"
)

// outputTree is an output directory as Commit, VerifyManifest and
// ReadManifest read it: a local directory, opened as an [os.Root], or the
// objects under an s3://bucket/prefix URL.
type outputTree struct {
	dir  string
	root *os.Root // local
	url  string   // in a bucket: dir without a final "/"
	ctx  context.Context
}

// openTree opens the output directory dir, a path or an s3:// URL.
func openTree(dir string) (*outputTree, error) {
	if objstore.IsURL(dir) {
		if _, _, err := objstore.ParseURL(dir); err != nil {
			return nil, err
		}
		return &outputTree{dir: dir, url: strings.TrimSuffix(dir, "/"), ctx: context.Background()}, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &outputTree{dir: dir, root: root}, nil
}

func (t *outputTree) Close() error {
	if t.root != nil {
		return t.root.Close()
	}
	return nil
}

// join returns the path or URL of rel in the tree, for errors.
func (t *outputTree) join(rel string) string { return joinDir(t.dir, rel) }

// joinDir returns the path or URL of rel in the output directory dir.
func joinDir(dir, rel string) string {
	if objstore.IsURL(dir) {
		return strings.TrimSuffix(dir, "/") + "/" + rel
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// listedFile is a data file a manifest lists, open for reading.
type listedFile interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

type localListed struct{ *os.File }

func (f localListed) Size() int64 {
	fi, err := f.Stat()
	if err != nil {
		return -1
	}
	return fi.Size()
}

// open opens the file rel (slash-separated, checked with checkLocal)
// that a record lists: locally through the root, as openListed does.
func (t *outputTree) open(rel string) (listedFile, error) {
	if t.url == "" {
		f, err := openListed(t.root, rel)
		if err != nil {
			return nil, err
		}
		return localListed{f}, nil
	}
	return objstore.Open(t.ctx, t.url+"/"+rel, objstore.Options{})
}

// readRecord reads the record name of the directory itself, as
// readRecordIn does.
func (t *outputTree) readRecord(name string) ([]byte, error) {
	if t.url == "" {
		return readRecordIn(t.root, name)
	}
	b, err := objstore.ReadAll(t.ctx, t.url+"/"+name, maxRecordBytes)
	if errors.Is(err, objstore.ErrNoObject) {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, err
}

// scanBucket lists the objects under the tree's URL as scanOutput lists a
// directory: keys with an element starting with "." or "_" below the
// prefix are skipped, as the sources skip them.
func (t *outputTree) scanBucket() (*output, error) {
	out := &output{files: map[int][]string{}}
	err := objstore.List(t.ctx, t.url+"/", func(name string, _ objstore.Stamp) error {
		rel := strings.TrimPrefix(name, t.url+"/")
		if r, ok := manifestRank(rel); ok {
			out.manifests = append(out.manifests, r)
			return nil
		}
		if slices.ContainsFunc(strings.Split(rel, "/"), dataset.Hidden) {
			return nil
		}
		base := path.Base(rel)
		if r, ok := dataFileRank(base); ok {
			out.files[r] = append(out.files[r], rel)
		} else if isDataName(base) {
			out.stray = append(out.stray, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the objects: %w", err)
	}
	out.sort()
	return out, nil
}

// scan lists what the tree holds as a reader finds it (see scanOutput).
func (t *outputTree) scan() (*output, error) {
	if t.url != "" {
		return t.scanBucket()
	}
	return scanOutput(t.dir)
}

// putDatasetManifest puts the dataset manifest b in the bucket, unless
// the object there already holds it. An object replaces the old one
// whole: readers see the old manifest or the new one.
func (t *outputTree) putDatasetManifest(b []byte) error {
	name := t.url + "/" + datasetManifestName
	old, err := objstore.ReadAll(t.ctx, name, maxRecordBytes)
	if err == nil && string(old) == string(b) {
		return nil
	}
	if err != nil && !errors.Is(err, objstore.ErrNoObject) {
		return err
	}
	return objstore.Put(t.ctx, name, strings.NewReader(string(b)), int64(len(b)), false)
}
