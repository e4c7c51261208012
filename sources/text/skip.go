package text

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/rowflow/rowflow/sources"
)

// The bounds of a report of skipped records, which sources.SkipBad states.
const (
	maxBadLines      = 1000      // records listed
	maxBadLineBytes  = 1 << 10   // of each record's message
	maxBadLinesBytes = 256 << 10 // of the messages and paths of all
)

// badLines gathers a run's skipped records; parallel reads add to it.
//
// What it lists is the same at every parallelism: the longest run of
// records, in the report's order, within the bounds. It keeps the smallest
// records added so far in a heap whose top is the largest, and drops the
// top while the kept ones are past the bounds; a record once dropped can
// never be listed, nor can a larger one, so it remembers the smallest
// dropped (cut) and takes no larger record. The kept records are then
// always a superset of the ones to list, and at most the bounds.
type badLines struct {
	mu      sync.Mutex
	kept    badHeap
	bytes   int // of the kept records' messages and paths
	cut     *sources.Skipped
	skipped int64 // all the records added
}

// badSize is what a record counts against maxBadLinesBytes.
func badSize(b *sources.Skipped) int { return len(b.Path) + len(b.Err) }

// compareBadLines orders records as the report lists them.
func compareBadLines(a, b *sources.Skipped) int {
	return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Offset, b.Offset), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Err, b.Err))
}

// shortenMessage cuts s to maxBadLineBytes bytes, at a character
// boundary, and says how many it left out; the result shares no memory
// with s, which may be a long record's text.
func shortenMessage(s string) string {
	if len(s) <= maxBadLineBytes {
		return s
	}
	n := maxBadLineBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d more bytes)", s[:n], len(s)-n)
}

func (l *badLines) add(b sources.Skipped) {
	b.Err = shortenMessage(b.Err)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.skipped++
	if l.cut != nil && compareBadLines(&b, l.cut) > 0 {
		return
	}
	heap.Push(&l.kept, b)
	l.bytes += badSize(&b)
	for len(l.kept) > maxBadLines || l.bytes > maxBadLinesBytes {
		top := heap.Pop(&l.kept).(sources.Skipped)
		l.bytes -= badSize(&top)
		if l.cut == nil || compareBadLines(&top, l.cut) < 0 {
			l.cut = &top
		}
	}
}

// write stores the log in r, sorted: the same at every parallelism.
func (l *badLines) write(r *sources.SkipReport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := slices.Clone(l.kept)
	slices.SortFunc(kept, func(a, b sources.Skipped) int { return compareBadLines(&a, &b) })
	var lines []sources.Skipped
	bytes := 0
	for i := range kept {
		b := &kept[i]
		if (l.cut != nil && compareBadLines(b, l.cut) > 0) || len(lines) == maxBadLines || bytes+badSize(b) > maxBadLinesBytes {
			break
		}
		lines, bytes = append(lines, *b), bytes+badSize(b)
	}
	*r = sources.SkipReport{Skipped: lines, Omitted: l.skipped - int64(len(lines))}
}

// badHeap is a heap of records whose top is the largest.
type badHeap []sources.Skipped

func (h badHeap) Len() int           { return len(h) }
func (h badHeap) Less(i, j int) bool { return compareBadLines(&h[i], &h[j]) > 0 }
func (h badHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *badHeap) Push(x any)        { *h = append(*h, x.(sources.Skipped)) }
func (h *badHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
