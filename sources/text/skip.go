package text

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"
)

// BadLineReport lists the records that a run with [SkipBadLines] skipped.
// It is bounded, whatever the input: see [SkipBadLines].
type BadLineReport struct {
	// Lines lists the first skipped records by file path, then byte
	// offset: as many as the bounds allow.
	Lines []BadLine
	// Omitted counts the skipped records that Lines leaves out.
	Omitted int64
}

// BadLine is one skipped record.
type BadLine struct {
	Path   string // relative to the dataset root
	Line   int64  // the line it starts on, from 1
	Offset int64  // the byte offset of its start in the (decompressed) file
	// Err says what is wrong with it: the first KiB of the message,
	// then how many bytes more it had.
	Err string
}

// The bounds of a BadLineReport, which SkipBadLines states.
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
	cut     *BadLine
	skipped int64 // all the records added
}

// size is what a record counts against maxBadLinesBytes.
func (b *BadLine) size() int { return len(b.Path) + len(b.Err) }

// compareBadLines orders records as the report lists them.
func compareBadLines(a, b *BadLine) int {
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

func (l *badLines) add(b BadLine) {
	b.Err = shortenMessage(b.Err)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.skipped++
	if l.cut != nil && compareBadLines(&b, l.cut) > 0 {
		return
	}
	heap.Push(&l.kept, b)
	l.bytes += b.size()
	for len(l.kept) > maxBadLines || l.bytes > maxBadLinesBytes {
		top := heap.Pop(&l.kept).(BadLine)
		l.bytes -= top.size()
		if l.cut == nil || compareBadLines(&top, l.cut) < 0 {
			l.cut = &top
		}
	}
}

// write stores the log in r, sorted: the same at every parallelism.
func (l *badLines) write(r *BadLineReport) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := slices.Clone(l.kept)
	slices.SortFunc(kept, func(a, b BadLine) int { return compareBadLines(&a, &b) })
	var lines []BadLine
	bytes := 0
	for i := range kept {
		b := &kept[i]
		if (l.cut != nil && compareBadLines(b, l.cut) > 0) || len(lines) == maxBadLines || bytes+b.size() > maxBadLinesBytes {
			break
		}
		lines, bytes = append(lines, *b), bytes+b.size()
	}
	*r = BadLineReport{Lines: lines, Omitted: l.skipped - int64(len(lines))}
}

// badHeap is a heap of records whose top is the largest.
type badHeap []BadLine

func (h badHeap) Len() int           { return len(h) }
func (h badHeap) Less(i, j int) bool { return compareBadLines(&h[i], &h[j]) > 0 }
func (h badHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *badHeap) Push(x any)        { *h = append(*h, x.(BadLine)) }
func (h *badHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
