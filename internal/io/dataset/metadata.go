package dataset

import (
	"context"
	"os"

	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Metadata reports the layout of a data file without reading its data.
// A [Plan] calls it lazily, at most once per file in the common case (see
// "Costs" in the package documentation), and never for a file that a
// partition filter pruned.
type Metadata interface {
	// RowGroups returns the number of rows of each row group of f, in file
	// order. Implementations must be safe for concurrent use. An error
	// must name the file: the Plan passes it on as it is.
	RowGroups(ctx context.Context, f File) ([]int64, error)
}

// MetadataFunc adapts a function to the [Metadata] interface.
type MetadataFunc func(ctx context.Context, f File) ([]int64, error)

// RowGroups calls fn(ctx, f).
func (fn MetadataFunc) RowGroups(ctx context.Context, f File) ([]int64, error) {
	return fn(ctx, f)
}

// ParquetFooters is the [Metadata] of Parquet files on disk or in a
// bucket: it reads the magic bytes and the footer of f.Path, and nothing
// else (no page index, no bloom filters, no pages).
type ParquetFooters struct{}

var (
	_ Metadata = ParquetFooters{}
	_ Metadata = MetadataFunc(nil)
)

// RowGroups reads the footer of f.Path and returns its row-group sizes,
// once pqcol has checked them against what the file's column chunks can
// hold. Its errors name f.Path; those of local files are [*os.PathError]s.
func (ParquetFooters) RowGroups(ctx context.Context, f File) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fh, err := objstore.Open(ctx, f.Path, objstore.Options{Tail: objstore.FooterTail})
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r, err := pqcol.Open(f.Path, fh, fh.Size())
	if err != nil {
		return nil, &os.PathError{Op: "read footer", Path: f.Path, Err: err}
	}
	groups := r.File().Metadata().RowGroups
	rows := make([]int64, len(groups))
	for i, g := range groups {
		rows[i] = g.NumRows
	}
	return rows, nil
}
