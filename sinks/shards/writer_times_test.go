package shards_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// hiddenTime is a struct with a time.Time tagged optional, which
// parquet-go's GenericWriter writes as null when the struct is behind a
// pointer or in a slice.
type hiddenTime struct {
	T time.Time `parquet:"t,optional"`
	N int64     `parquet:"n,optional"`
}

// TestOptionalTimesBehindPointers: Parquet writes an optional time.Time
// in a struct behind a pointer or in a slice with its own writer, value
// for value; a type that parquet-go's writer would take (one with a map)
// and lose the time in is refused with an error naming the field, not
// written with nulls.
func TestOptionalTimesBehindPointers(t *testing.T) {
	ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	type own struct {
		ID int64        `parquet:"id"`
		P  *hiddenTime  `parquet:"p"`
		L  []hiddenTime `parquet:"l,list"`
	}
	dir := filepath.Join(t.TempDir(), "own")
	rows := []own{{ID: 1, P: &hiddenTime{T: ts, N: 2}, L: []hiddenTime{{T: ts.Add(time.Hour)}, {N: 3}}}, {ID: 2}}
	if err := flow.From(sources.Slice(rows)).To(shards.Parquet[own](dir)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := readBack[own](t, dir)
	if len(got) != 2 || got[0].P == nil || !got[0].P.T.Equal(ts) || got[0].P.N != 2 || len(got[0].L) != 2 ||
		!got[0].L[0].T.Equal(ts.Add(time.Hour)) || !got[0].L[1].T.IsZero() || got[0].L[1].N != 3 || got[1].P != nil {
		t.Fatalf("read back %+v", got)
	}

	type withMap struct {
		ID int64            `parquet:"id"`
		M  map[string]int64 `parquet:"m"`
		P  *hiddenTime      `parquet:"p"`
	}
	err := flow.From(sources.Slice([]withMap{{ID: 1, P: &hiddenTime{T: ts}}})).To(shards.Parquet[withMap](filepath.Join(t.TempDir(), "map"))).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "field P.T is a time.Time tagged optional in a struct behind a pointer or a slice") {
		t.Fatalf("a type parquet-go would write with the time lost: %v", err)
	}
}
