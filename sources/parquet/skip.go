package parquet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/dataset"
)

// SkipBadFragments makes a Parquet source skip what it cannot read instead
// of failing: a fragment whose pages are corrupt, unsupported or too large
// yields no rows (its partition still closes), and a file whose footer
// cannot be read yields no fragments. What was skipped is written to
// report when the run ends, replacing its contents; the same input gives
// the same report at every parallelism, for runs that read the whole
// plan. (When a stage downstream ends the stream early, as
// operators.Take does, parallel readers may have read ahead, and skipped,
// fragments that a serial run never reached.)
//
// A skipped fragment's rows are buffered until it has been read whole, so
// that no row of a bad fragment is passed on.
func SkipBadFragments(report *SkipReport) Option {
	return option(func(c *parquetConfig) error {
		if report == nil {
			return fmt.Errorf("sources: SkipBadFragments(nil): want a report to write to")
		}
		c.skip = report
		return nil
	})
}

// SkipReport lists what a run with [SkipBadFragments] skipped.
type SkipReport struct {
	// Skipped lists the skipped files and fragments in plan order: files
	// whose footer failed first (by path), then fragments by partition number.
	Skipped []Skipped
	// RowsLost counts the rows of the skipped fragments, as the footers
	// declare them; the rows of files whose footer failed are unknown.
	RowsLost int64
	// FilesLost counts the files whose footer could not be read.
	FilesLost int
}

// Skipped is one skipped file (RowGroup -1, From = To = 0, Part -1) or
// fragment.
type Skipped struct {
	Path     string // relative to the dataset root
	Part     int64
	RowGroup int
	From, To int64
	Err      string
}

// skipLog gathers a run's skips; parallel reads add to it concurrently.
type skipLog struct {
	mu    sync.Mutex
	items []Skipped
	files map[string]bool // files logged as unreadable
}

func (l *skipLog) add(s Skipped) {
	l.mu.Lock()
	l.items = append(l.items, s)
	l.mu.Unlock()
}

// addFile logs an unreadable file, once.
func (l *skipLog) addFile(s Skipped) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.files[s.Path] {
		return
	}
	if l.files == nil {
		l.files = map[string]bool{}
	}
	l.files[s.Path] = true
	l.items = append(l.items, s)
}

// write stores the log in r in plan order.
func (l *skipLog) write(r *SkipReport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	items := slices.Clone(l.items)
	slices.SortFunc(items, func(a, b Skipped) int {
		return cmp.Or(cmp.Compare(a.Part, b.Part), cmp.Compare(a.Path, b.Path))
	})
	*r = SkipReport{Skipped: items}
	for _, s := range items {
		if s.Part < 0 {
			r.FilesLost++
		} else {
			r.RowsLost += s.To - s.From
		}
	}
}

// readSkipping reads a fragment into memory and passes it on only if all
// of it could be read; otherwise it logs the fragment and closes the
// partition empty. A fragment of a file that cannot be opened is not
// logged again: the file was, when the plan asked for its row groups.
func (run *parquetRun[T]) readSkipping(ctx context.Context, fr dataset.Fragment, out flow.Emitter[T]) error {
	of, err := run.open(ctx, fr.File)
	run.release(of)
	if err != nil && ctx.Err() == nil {
		run.skips.addFile(Skipped{Path: fr.Path, Part: -1, RowGroup: -1, Err: err.Error()})
		return out.Push(ctx, flow.Chunk[T]{Part: fr.Part, End: true})
	}
	var buf bufferOut[T]
	err = run.readStrict(ctx, fr, &buf)
	var changed *fileChanged
	if err != nil && ctx.Err() == nil && !errors.As(err, &changed) {
		for _, c := range buf.chunks {
			c.Release()
		}
		run.skips.add(Skipped{Path: fr.Path, Part: fr.Part, RowGroup: fr.RowGroup, From: fr.From, To: fr.To, Err: err.Error()})
		return out.Push(ctx, flow.Chunk[T]{Part: fr.Part, End: true})
	}
	if err != nil {
		for _, c := range buf.chunks {
			c.Release()
		}
		return err
	}
	for i, c := range buf.chunks {
		if err := out.Push(ctx, c); err != nil {
			for _, rest := range buf.chunks[i+1:] {
				rest.Release()
			}
			return err
		}
	}
	return nil
}

// bufferOut keeps the chunks pushed to it.
type bufferOut[T any] struct{ chunks []flow.Chunk[T] }

func (b *bufferOut[T]) Push(_ context.Context, c flow.Chunk[T]) error {
	b.chunks = append(b.chunks, c)
	return nil
}
