package parquet

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/sources"
)

// skipLog gathers a run's skips; parallel reads add to it concurrently.
type skipLog struct {
	mu    sync.Mutex
	items []sources.Skipped
	files map[string]bool // files logged as unreadable
}

func (l *skipLog) add(s sources.Skipped) {
	l.mu.Lock()
	l.items = append(l.items, s)
	l.mu.Unlock()
}

// addFile logs an unreadable file, once.
func (l *skipLog) addFile(s sources.Skipped) {
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
func (l *skipLog) write(r *sources.SkipReport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	items := slices.Clone(l.items)
	slices.SortFunc(items, func(a, b sources.Skipped) int {
		return cmp.Or(cmp.Compare(a.Part, b.Part), cmp.Compare(a.Path, b.Path))
	})
	*r = sources.SkipReport{Skipped: items}
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
		run.skips.addFile(sources.Skipped{Path: fr.Path, Part: -1, RowGroup: -1, Err: err.Error()})
		return out.Push(ctx, flow.Chunk[T]{Part: fr.Part, End: true})
	}
	var buf bufferOut[T]
	err = run.readStrict(ctx, fr, &buf)
	var changed *fileChanged
	if err != nil && ctx.Err() == nil && !errors.As(err, &changed) {
		for _, c := range buf.chunks {
			c.Release()
		}
		run.skips.add(sources.Skipped{Path: fr.Path, Part: fr.Part, RowGroup: fr.RowGroup, From: fr.From, To: fr.To, Err: err.Error()})
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
