package datasource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/objstore"
)

// smallFile is the size up to which HashSample hashes
// its whole contents; of a larger file it hashes the first and the last
// sampleBytes.
const (
	smallFile   = 128 << 10
	sampleBytes = 64 << 10
)

// FilesFingerprint hashes the path, size and modification time of each
// file of ds, and what contents adds of it; of a file it cannot read, the
// error.
func FilesFingerprint(ctx context.Context, ds *dataset.Dataset, contents func(h hash.Hash, f io.ReaderAt, size int64) error) (string, error) {
	h := sha256.New()
	for _, file := range ds.Files() {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err := fileFingerprint(ctx, h, file, contents); err != nil {
			// A run fails on the file, or skips it (sources.SkipBad);
			// the fingerprint says it could not be read.
			fmt.Fprintf(h, "file %q unreadable: %v\n", file.RelPath, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

func fileFingerprint(ctx context.Context, h hash.Hash, file dataset.File, contents func(h hash.Hash, f io.ReaderAt, size int64) error) error {
	f, err := objstore.Open(ctx, file.Path, objstore.Options{Tail: objstore.FooterTail})
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stamp()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %q %d %d\n", file.RelPath, st.Size, st.ModTime.UnixNano())
	if st.ETag != "" {
		fmt.Fprintf(h, "etag %q\n", st.ETag)
	}
	return contents(h, f, st.Size)
}

// HashSample adds to h the contents of a small file, or the first and
// last sampleBytes of a larger one.
func HashSample(h hash.Hash, f io.ReaderAt, size int64) error {
	if size <= smallFile {
		_, err := io.Copy(h, io.NewSectionReader(f, 0, size))
		return err
	}
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, sampleBytes)); err != nil {
		return err
	}
	_, err := io.Copy(h, io.NewSectionReader(f, size-sampleBytes, sampleBytes))
	return err
}
