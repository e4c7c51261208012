package sources

import (
	"cmp"
	"slices"
	"sync"
)

// BadLineReport lists the records that a run with [SkipBadLines] skipped.
type BadLineReport struct {
	// Lines lists the skipped records by file path, then byte offset.
	Lines []BadLine
}

// BadLine is one skipped record.
type BadLine struct {
	Path   string // relative to the dataset root
	Line   int64  // the line it starts on, from 1
	Offset int64  // the byte offset of its start in the (decompressed) file
	Err    string
}

// badLines gathers a run's skipped records; parallel reads add to it.
type badLines struct {
	mu    sync.Mutex
	lines []BadLine
}

func (l *badLines) add(b BadLine) {
	l.mu.Lock()
	l.lines = append(l.lines, b)
	l.mu.Unlock()
}

// write stores the log in r, sorted: the same at every parallelism.
func (l *badLines) write(r *BadLineReport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := slices.Clone(l.lines)
	slices.SortFunc(lines, func(a, b BadLine) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Offset, b.Offset))
	})
	*r = BadLineReport{Lines: lines}
}
