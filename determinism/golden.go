package determinism

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/flow"
)

// ErrMismatch is wrapped by the error [CheckGolden] returns when the stream
// differs from the recorded one.
var ErrMismatch = errors.New("determinism: digest differs from the recorded one")

// maxGoldenRows is the most items a stream may have for CheckGolden to
// list each item's row ID and digest in the golden file (see CheckGolden).
const maxGoldenRows = 10000

// SumOf runs p, which must have no sink and produce values of type T, and
// returns the digest of its stream. If T has no encoding (see the package
// documentation), it returns that error without running p.
func SumOf[T any](ctx context.Context, p *flow.Pipeline) (Sum, error) {
	if err := encodable[T](); err != nil {
		return Sum{}, err
	}
	h := NewHasher[T]()
	for c, err := range flow.Chunks[T](ctx, p) {
		if err != nil {
			return Sum{}, err
		}
		err := h.addChunk(&c)
		c.Release()
		if err != nil {
			return Sum{}, err
		}
	}
	return h.Sum(), nil
}

// recordFile writes p's golden file at path, replacing it, and returns
// the digest of the stream (see CheckGolden).
func recordFile[T any](ctx context.Context, p *flow.Pipeline, path string) (Sum, error) {
	g, err := record[T](ctx, p)
	if err != nil {
		return Sum{}, err
	}
	if err := writeAtomic(path, g.appendText(nil)); err != nil {
		return Sum{}, fmt.Errorf("determinism: %w", err)
	}
	return g.stream, nil
}

// checkFile compares p's stream with the golden file at path (see
// CheckGolden).
func checkFile[T any](ctx context.Context, p *flow.Pipeline, path string) error {
	want, err := readGolden(path)
	if err != nil {
		return err
	}
	if err := encodable[T](); err != nil {
		return err
	}
	if want.legacy {
		got, err := SumOf[T](ctx, p)
		if err != nil {
			return err
		}
		if got != want.stream {
			return fmt.Errorf("%w: the stream has %v (%d items), %s records %v (%d items)",
				ErrMismatch, got, got.Count, path, want.stream, want.stream.Count)
		}
		return nil
	}
	return checkGolden[T](ctx, p, path, want)
}

// CheckGolden is the golden-file test of a pipeline p, which must have
// no sink and produce values of type T. With update false it runs p and
// compares its stream with the golden file at path; with update true it
// runs p and writes the file instead, replacing it. Pass it the value of a
// test flag, as Go's own golden-file tests do:
//
//	var update = flag.Bool("update", false, "rewrite the golden files in testdata")
//
//	func TestReplay(t *testing.T) {
//		err := determinism.CheckGolden[Row](ctx, pipeline(), "testdata/rows.golden", *update)
//		if err != nil {
//			t.Fatal(err)
//		}
//	}
//
// and rewrite the files with "go test -run TestReplay -update" after a
// change to the pipeline that is meant to change its output.
//
// # Writing
//
// Nothing is written if the run fails, and the file appears under its
// name only once complete. A golden file is text, in lines:
//
//	rowflow golden v1
//	stream <digest> <items>
//	partition <batch> <items> <digest>
//	  <row ID> <item digest>
//	…
//
// The stream line holds the digest of the whole stream (see [Sum]), in
// hexadecimal, and its item count. Then each partition of the stream (a
// run of items with the same partition number) has a line with its partition
// number, item count and the digest of its items alone (as if they were
// a stream of their own). If the stream has at most 10000 items, each
// partition line is followed by one indented line per item: its row ID
// (see rowid.ID.String) and the first 16 hexadecimal digits of the
// SHA-256 of the item's encoding (row ID and value); a longer stream's
// file records its partitions only, so that a mismatch names the first
// differing partition but not the row. Partition numbers are recorded,
// unlike in a [Sum]: a change of partition size changes the file while
// the stream line stays the same.
//
// # Checking
//
// The comparison goes partition by partition, as the run goes, and stops
// the run at the first partition that differs. The error then wraps
// [ErrMismatch] and names that partition, with what the file records and
// what the run has; when the file lists rows, it also names the first
// differing item, its row ID in the file and in the run, and the run's
// value. Checking holds one partition of the run at a time.
//
// It also reads the files of earlier versions, which hold one line: the
// stream's digest in hexadecimal, a space, the item count. It then
// compares only the stream's digest.
func CheckGolden[T any](ctx context.Context, p *flow.Pipeline, path string, update bool) error {
	if update {
		_, err := recordFile[T](ctx, p, path)
		return err
	}
	return checkFile[T](ctx, p, path)
}

// writeAtomic writes data to a temporary file beside path and renames it
// to path.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
