package flow

import (
	"strings"
	"testing"
)

// TestWeigherCountsWhatValuesHold checks that a chunk's weight counts
// what its values point to, for the value types that a run carries:
// plain values, strings, slices, and records of boxed values and lists,
// as a schema-less source gives them.
func TestWeigherCountsWhatValuesHold(t *testing.T) {
	type record struct {
		Names  []string
		Values []any
	}
	names := []string{"id", "name", "tokens"}
	recs := make([]record, 1024)
	for i := range recs {
		tokens := make([]any, 32)
		for k := range tokens {
			tokens[k] = int32(k)
		}
		recs[i] = record{Names: names, Values: []any{int64(i), strings.Repeat("x", 40), tokens}}
	}
	// Each record: 3 names (48 bytes of headers, 12 bytes of text), 3
	// values (48 bytes), an int64 (8), a string header and 40 bytes (56),
	// a list header (24) and 32 boxed int32s (32*16 + 32*4 = 640): about
	// 836 bytes, 26 tokens for 1024 of them.
	if got := weigher[record]()(recs); got < 24 || got > 28 {
		t.Errorf("1024 records of 32 tokens weigh %d tokens, want 24 to 28", got)
	}
	if got := weigher[int64]()(make([]int64, 1024)); got != 1 {
		t.Errorf("1024 int64s weigh %d tokens, want 1", got)
	}
	strs := make([]string, 1024)
	for i := range strs {
		strs[i] = strings.Repeat("y", 100)
	}
	if got := weigher[string]()(strs); got != 4 {
		t.Errorf("1024 strings of 100 bytes weigh %d tokens, want 4", got)
	}
	lists := make([][]string, 1024)
	for i := range lists {
		lists[i] = strs[:8]
	}
	// 24 + 8*(16+100) = 952 bytes a list.
	if got := weigher[[]string]()(lists); got != 30 {
		t.Errorf("1024 lists of 8 strings weigh %d tokens, want 30", got)
	}
	if got, max := weigher[record]()(append(recs, recs...)), budgetChunks(1)/2; got != max {
		t.Errorf("2048 records weigh %d tokens, want the most a chunk takes, %d", got, max)
	}
	if got := weigher[record](); got(nil) != 1 {
		t.Errorf("an empty chunk weighs %d tokens, want 1", got(nil))
	}
}
