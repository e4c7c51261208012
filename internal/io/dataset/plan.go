package dataset

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/rowflow/rowflow/internal/filter"
)

// Plan computes, per epoch, the ordered fragments of a [Dataset] for one
// rank. It reads no data; it reads file footers lazily, through its
// [Metadata], and caches the row-group sizes it learns. A Plan is safe for
// concurrent use, and its iterators can be run any number of times with the
// same result.
type Plan struct {
	ds    *Dataset
	cfg   Config
	files []int // indices into ds.files kept by the filter, in RelPath order

	mu   sync.Mutex
	rows map[int][]int64 // row-group sizes by file index
}

// New returns the plan of ds configured by cfg. It evaluates the
// partition filter, so an error names a filter column that the dataset
// lacks; it opens no file.
func New(ds *Dataset, cfg Config) (*Plan, error) {
	if ds == nil {
		return nil, errors.New("dataset: nil Dataset")
	}
	if cfg.Metadata == nil {
		cfg.Metadata = ParquetFooters{}
	}
	files, err := selectFiles(ds, cfg.Where)
	if err != nil {
		return nil, err
	}
	return &Plan{ds: ds, cfg: cfg, files: files, rows: make(map[int][]int64)}, nil
}

// selectFiles returns the indices of the files that e makes true.
func selectFiles(ds *Dataset, e *filter.Expr) ([]int, error) {
	if e != nil {
		if err := e.Check(); err != nil {
			return nil, fmt.Errorf("dataset: filter %s: %w", e, err)
		}
		for _, col := range e.Columns(nil) {
			if !slices.Contains(ds.columns, col) {
				return nil, fmt.Errorf("dataset: filter %s names unknown partition column %q (partition columns: %q)",
					e, col, ds.columns)
			}
		}
	}
	files := make([]int, 0, len(ds.files))
	for i, f := range ds.files {
		if e != nil {
			t, err := e.MatchText(f.Partition.filterText)
			if err != nil {
				return nil, fmt.Errorf("dataset: %s: filter %s: %w", f.RelPath, e, err)
			}
			if t != filter.TriTrue {
				continue
			}
		}
		files = append(files, i)
	}
	return files, nil
}

// Dataset returns the dataset the plan was made for.
func (p *Plan) Dataset() *Dataset { return p.ds }

// NumFiles returns the number of files the partition filter kept.
func (p *Plan) NumFiles() int { return len(p.files) }

// Fragments returns an iterator over this rank's fragments from position
// from (the zero Position is the start) to the end of the last epoch. It
// stops after the first error, which it yields with a zero Fragment. The
// sequence is the same on every run; see "Resuming" in the package
// documentation for what starting in the middle costs.
func (p *Plan) Fragments(ctx context.Context, from Position) iter.Seq2[Fragment, error] {
	return func(yield func(Fragment, error) bool) {
		if from.Epoch < 0 || from.Index < 0 {
			yield(Fragment{}, fmt.Errorf("dataset: invalid start position %+v", from))
			return
		}
		for e := from.Epoch; p.cfg.forever() || e < p.cfg.epochs(); e++ {
			skip := int64(0)
			if e == from.Epoch {
				skip = from.Index
			}
			n, err := p.epoch(ctx, e, skip, yield)
			if err != nil || n == 0 {
				return // stopped, failed, or empty: every epoch has the same fragments
			}
		}
	}
}

// Epoch returns an iterator over this rank's fragments of epoch e alone.
// Planning an epoch does not depend on the epochs before it.
func (p *Plan) Epoch(ctx context.Context, e int64) iter.Seq2[Fragment, error] {
	return func(yield func(Fragment, error) bool) {
		if e < 0 || (!p.cfg.forever() && e >= p.cfg.epochs()) {
			yield(Fragment{}, fmt.Errorf("dataset: epoch %d out of range", e))
			return
		}
		p.epoch(ctx, e, 0, yield)
	}
}

// rowGroups returns the row-group sizes of file i, reading its footer on
// first use.
func (p *Plan) rowGroups(ctx context.Context, i int) ([]int64, error) {
	p.mu.Lock()
	rows, ok := p.rows[i]
	p.mu.Unlock()
	if ok {
		return rows, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f := p.ds.files[i]
	rows, err := p.cfg.Metadata.RowGroups(ctx, f)
	if err != nil {
		return nil, err // the Metadata's error names the file
	}
	for g, n := range rows {
		if n < 0 {
			return nil, fmt.Errorf("dataset: row groups of %s: group %d has %d rows", f.RelPath, g, n)
		}
	}
	rows = slices.Clone(rows)
	p.mu.Lock()
	p.rows[i] = rows
	p.mu.Unlock()
	return rows, nil
}
